// ReplyResponse: a function's reply row as the response: the status (the route's when SQL
// names none), the problem SQL answered, the body and its type, Retry-After, and the ETag with
// its caching rule and If-None-Match (Conditional.swift).

extension Reply {
    func response(route: Route, ifNoneMatch: String?) -> Response {
        let status = self.status ?? route.status
        if let code {
            var problem = Problem(status, code, message ?? code, extensions: extensions)
            problem.user = user
            var response = problem.response
            if let retryAfter { response.setHeader("Retry-After", retryAfter) }
            return response
        }
        var response = Response(status: status)
        response.user = user
        if let body, status != 204 {
            response.body = body
            response.setHeader("Content-Type", contentType ?? "application/octet-stream")
        }
        if let retryAfter { response.setHeader("Retry-After", retryAfter) }
        if let etag {
            var tag = "\""
            tag.reserveCapacity(etag.utf8.count + 2)
            tag += etag
            tag += "\""
            response.setHeader("ETag", tag)
            // A signed-in person's own answer (their profile, friends…) may be kept by their own client
            // only, never by a shared cache; a public one (the catalog) by any.
            response.setHeader("Cache-Control", route.access == .bearer ? "private, no-cache" : "no-cache")
            response.revalidate(ifNoneMatch: ifNoneMatch, tag: tag)
        }
        return response
    }
}
