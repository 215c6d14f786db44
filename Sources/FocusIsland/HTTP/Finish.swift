// Finish: the last stage of every answer: its X-Request-Id (the client's, or one of ours,
// RequestIDs.swift), Cache-Control: no-store unless the answer says how it may be kept, and its
// log line (RequestLog.swift).

extension Pipeline {
    func finish(_ response: Response, _ request: Request, template: String, startedAt: UInt64, log: Bool) -> Response {
        var response = response
        let requestID = requestIDs.id(from: request.header("x-request-id"))
        response.setHeader("X-Request-Id", requestID)
        // Answers are computed per user and may carry tokens (sign-up, login, reset) or a whole
        // account (the export): no cache keeps one unless the answer says how (an ETag's
        // no-cache, an asset's immutable, the contract's max-age).
        if response.header("Cache-Control") == nil { response.setHeader("Cache-Control", "no-store") }
        if log { logRequest(request, template: template, response: response, startedAt: startedAt, requestID: requestID) }
        return response
    }
}
