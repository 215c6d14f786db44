// Admission: the release controls (Live/ReleaseControls.swift) at the door of each route they
// hold: 426 for an app below its platform's minimum, 503 during maintenance, 400 for a
// malformed X-Client-Version. Routes marked `.always` pass whatever the header says; the pages
// and files are not admitted at all (Pipeline.plan). What the controls are is SQL's.

extension Pipeline {
    func admit(_ request: Request, _ route: Route) throws(Problem) {
        guard route.admission == .controlled else { return }
        let client = try ClientVersion(header: request.header("x-client-version"))
        try releaseControls().admit(client)
    }

    /// The controls from memory, or read from SQL (api.config_get) and kept until the next
    /// config.changed; without a listener, read on every request.
    private func releaseControls() throws(Problem) -> ReleaseControls {
        let lookup = cache?.lookupControls() ?? .off
        if case .hit(let controls) = lookup { return controls }
        let reply = try call(Routes.configGet, [nil, "{}"], pool: pool)
        guard reply.code == nil, let body = reply.body, let controls = ReleaseControls(configBody: body) else {
            logger.error("admission: api.config_get gave no release controls")
            throw Problem(500, "internal_error", "Something went wrong on our side.")
        }
        if case .miss(let generation) = lookup { cache?.storeControls(controls, generation: generation) }
        return controls
    }
}
