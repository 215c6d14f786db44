// RequestLog: one answered request's log line (Log/Logger.swift) and its metrics
// (Server/Metrics.swift), counted once, when it is answered.

extension Pipeline {
    func logRequest(_ request: Request, template: String, response: Response, startedAt: UInt64, requestID: String) {
        logRequest(
            request, template: template, status: response.status, code: response.code, user: response.user,
            startedAt: startedAt, requestID: requestID)
    }

    /// The same for an answer the server sent itself (an event stream's head): its status and user.
    func logRequest(
        _ request: Request, template: String, status: Int, code: String? = nil, user: String?, startedAt: UInt64,
        requestID: String
    ) {
        let microseconds = Int(monotonicMicroseconds() - startedAt)
        metrics.record(method: request.method, route: template, status: status, microseconds: microseconds)
        logger.request(
            id: requestID, method: request.method, route: template, status: status, microseconds: microseconds,
            code: code, user: user, client: request.clientAddress)
    }
}
