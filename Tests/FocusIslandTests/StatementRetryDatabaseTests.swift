import Dispatch
import Synchronization
import Testing

// One retry policy for the blocking and the asynchronous call (Database/StatementRetry.swift,
// HTTP/StatementCall.swift): a statement that fails with a serialization failure or a deadlock
// is sent again, three tries in all, on either path; any other failure is answered at once.
// A function of a throwaway schema fails its first tries on purpose (a sequence counts them:
// nextval is not rolled back with the failed statement).
@testable import FocusIsland

@Suite(.serialized) struct StatementRetryDatabaseTests {
    static let setUp = """
        create schema if not exists retry_test;
        create sequence if not exists retry_test.tries;
        create or replace function retry_test.flaky(t text, p jsonb, b jsonb)
        returns table (status int, body jsonb, etag text, retry_after text, code text, message text)
        language plpgsql as $$
        begin
            if nextval('retry_test.tries') <= (p->>'fail')::int then
                raise exception 'failed on purpose' using errcode = p->>'state';
            end if;
            return query select 200, '{"ok": true}'::jsonb, null::text, null::text, null::text, null::text;
        end $$;
        select setval('retry_test.tries', 1, false);
        """
    static let route = Route("POST", "/flaky", .sql("retry_test.flaky"), access: .public)

    /// The blocking call's (`async: false`) or the poller's answer, with how often it was tried.
    func call(fail: Int, state: String, async: Bool) throws -> (Result<Reply, Problem>, tries: Int) {
        let owner = try TestEnvironment.owner()
        defer { owner.close() }
        _ = try owner.execute(Self.setUp)
        defer { _ = try? owner.execute("drop schema retry_test cascade") }
        let poller = async ? DatabasePoller() : nil
        defer { poller?.stop() }
        let pool = ConnectionPool(
            conninfo: try TestEnvironment.ownerURL(), capacity: 1, checkoutTimeout: 5, namedStatements: true,
            poller: poller)
        let call = StatementCall(
            route: Self.route, parameters: [nil, #"{"fail": \#(fail), "state": "\#(state)"}"#], pool: pool, keyed: false,
            retry: .statements, logger: Logger(format: .off))
        let result: Result<Reply, Problem>
        if async {
            let answer = Mutex<Result<Reply, Problem>?>(nil)
            let done = DispatchSemaphore(value: 0)
            call.submit(
                leaving: {},
                done: { outcome in
                    answer.withLock { $0 = outcome }
                    done.signal()
                })
            done.wait()
            result = try #require(answer.withLock { $0 })
        } else {
            result = Result { () throws(Problem) -> Reply in try call.run() }
        }
        pool.closeIdle()
        let counted = try owner.execute("select last_value from retry_test.tries")
        return (result, Int(counted.first?.first.flatMap { $0 } ?? "") ?? 0)
    }

    @Test(arguments: [false, true])
    func serializationFailuresAndDeadlocksAreTriedThreeTimes(async: Bool) throws {
        let (twice, triedThrice) = try call(fail: 2, state: "40001", async: async)
        #expect((try? twice.get())?.status == 200 && triedThrice == 3)
        let (once, triedTwice) = try call(fail: 1, state: "40P01", async: async)
        #expect((try? once.get())?.status == 200 && triedTwice == 2)
        let (always, tried) = try call(fail: 5, state: "40001", async: async)
        guard case .failure(let problem) = always else {
            Issue.record("three failures in a row answer 503 busy")
            return
        }
        #expect(problem.status == 503 && problem.code == "busy" && tried == 3)
    }

    @Test(arguments: [false, true])
    func anyOtherFailureIsAnsweredAtOnce(async: Bool) throws {
        let (canceled, tried) = try call(fail: 1, state: "57014", async: async)
        guard case .failure(let problem) = canceled else {
            Issue.record("a statement timeout is not retried")
            return
        }
        #expect(problem.code == "timeout" && tried == 1)
    }
}
