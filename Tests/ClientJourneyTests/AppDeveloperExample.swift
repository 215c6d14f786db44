// The example for app developers in Client/README.md: it quotes the lines between the
// markers, AppDeveloperExampleTests checks the quote is this file's and runs it.
// BEGIN README EXAMPLE
import FocusIslandClient
import Foundation

/// Signs up, listens to live events, shops, and records a session that waits offline.
func focusIslandExample(
    server: URL, email: String, queueFile: URL, now: Date = Date(),
    askForCode: @Sendable (String) async -> String? = { _ in nil },
    report: @escaping @Sendable (String) -> Void = { print($0) }
) async throws(FocusIslandError) {
    // One client per server (init throws .invalidBaseURL for a URL that is not one). It keeps
    // the token that register and login return; keep signedIn.token in the keychain and pass
    // it as `token:` on the next launch. Every call throws FocusIslandError, typed: no casts.
    let client = try FocusIslandClient(baseURL: server)
    let password = "correct horse battery"
    var answer = try await client.register(email: email, password: password, displayName: "Ada")
    // From a network many people share (a school's), the server may mail a code first (202):
    // ask the person for it and send the same sign-up again with the code.
    if let mailed = answer.codeMailed {
        guard let code = await askForCode("Enter the code mailed to \(email) (\(mailed.codeExpiresIn / 60) minutes)")
        else { return }
        answer = try await client.register(email: email, password: password, displayName: "Ada", code: code)
    }
    guard let signedIn = answer.signedIn else { return }
    report("signed in as \(signedIn.user.displayName)")

    // Live events: an SSE stream that reconnects by itself, or long-polls when it must.
    let listener = Task {
        for try await event in client.events() {
            report("event \(event.id): \(event.type)")
        }
    }
    defer { listener.cancel() }

    // The catalog is kept by ETag: reading it again costs a 304. A purchase carries an
    // Idempotency-Key, so the client may retry it after a dropped connection: charged once.
    let catalog = try await client.shopItemsList()
    if let pet = catalog.pets.max(by: { $0.price < $1.price }) {
        do {
            let purchase = try await client.shopPurchasesCreate(ItemChoiceBody(itemId: pet.id))
            report("bought \(purchase.value.item.name); \(purchase.value.balance) coins left")
        } catch let error where error.code == .insufficientFunds {
            report("not yet: \(error.detail ?? "")")
        }
    }

    // A session finished without a network waits in a file until a flush gets through. Here
    // it ran from the sign-up to `now`: the server refuses a session that started before the
    // account was made (422 invalid_session), so a phone uploads no sessions of before then.
    let queue = try SessionQueue(fileURL: queueFile, client: client)
    try await queue.enqueue(
        SessionBatchItem(
            id: UUID(), startedAt: signedIn.user.createdAt, endedAt: Time(now),
            plannedMinutes: 25, rating: .good))
    do {
        let flushed = try await queue.flush()
        report("\(flushed.applied.count) session(s) recorded, \(flushed.rejected.count) refused")
    } catch {
        report("still offline (\(error)): the session stays queued")
    }
}
// END README EXAMPLE
