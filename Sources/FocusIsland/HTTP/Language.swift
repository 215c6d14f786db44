// Language: the language of a localized route's answer: Accept-Language negotiated
// (AcceptLanguage.swift) against the languages the database offers, which the shared cache
// keeps while it listens; without a header, the fallback at no cost.

extension Pipeline {
    func language(_ request: Request) throws(Problem) -> String {
        let header = request.header("accept-language")
        guard header != nil else { return AcceptLanguage.fallback }
        switch cache?.lookupLanguages() ?? .off {
        case .hit(let offered):
            return AcceptLanguage.negotiate(header, offered: offered)
        case .off:
            return AcceptLanguage.negotiate(header, offered: try offeredLanguages())
        case .miss(let generation):
            let offered = try offeredLanguages()
            cache?.storeLanguages(offered, generation: generation)
            return AcceptLanguage.negotiate(header, offered: offered)
        }
    }

    /// api.languages_offered(): English first, then each offered tag.
    private func offeredLanguages() throws(Problem) -> [String] {
        do throws(DatabaseError) {
            let rows = try pool.withConnection { connection throws(DatabaseError) in
                try connection.executePrepared("api.languages_offered", "select api.languages_offered()", [])
            }
            guard let text = rows.first?.first ?? nil else {
                throw DatabaseError(sqlState: "XX000", message: "api.languages_offered returned no row")
            }
            return text.split(separator: ",").map(String.init)
        } catch {
            let problem = Problem(error)
            if problem.status >= 500 { logger.error("api.languages_offered: \(error)") }
            throw problem
        }
    }
}
