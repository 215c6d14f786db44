// focus-island: `serve` (default), `migrate`, `seed`, `mail`, `push`, `apple-revoke` (the senders). Configuration comes from the environment.
import FocusIsland
import Foundation
import Glibc

let arguments = CommandLine.arguments.dropFirst()
let command = arguments.first ?? "serve"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let configuration: Configuration
do {
    configuration = try Configuration(environment: ProcessInfo.processInfo.environment)
} catch {
    fail(error.description)
}
let logger = Logger(format: configuration.logFormat)

/// Blocks SIGTERM and SIGINT in this thread before any other starts, so every thread inherits
/// the mask and only this one receives them, through sigwait on the set returned.
func blockStopSignals() -> sigset_t {
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    sigaddset(&stopSignals, SIGTERM)
    sigaddset(&stopSignals, SIGINT)
    pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
    return stopSignals
}

/// A sender's loop (push, Apple revocations) on a thread of its own: with `--once` until nothing
/// is due; else until SIGTERM or SIGINT, then it finishes the round in flight (`stop`). Its
/// thread exits the process on an error.
func runUntilStopped(
    _ name: String, counting what: String, signals: inout sigset_t, run: @escaping @Sendable (Bool) throws -> Int,
    stop: () -> Void
) {
    let once = arguments.contains("--once")
    let done = DispatchSemaphore(value: 0)
    Thread {
        do {
            let settled = try run(once)
            logger.info("\(name): stopped after \(settled) \(what)")
        } catch {
            logger.error("\(error)")
            exit(1)
        }
        done.signal()
    }.start()
    if !once {
        var received: Int32 = 0
        sigwait(&signals, &received)
        logger.info("signal \(received): finishing the round in flight")
        stop()
    }
    done.wait()
}

switch command {
case "serve":
    var stopSignals = blockStopSignals()

    // A database host that does not answer must not hold a worker for minutes: libpq gives up
    // connecting after PGCONNECT_TIMEOUT seconds (3 unless the environment says otherwise).
    setenv("PGCONNECT_TIMEOUT", "3", 0)
    // Everything else is wired in one place (Server/Application.swift), which the tests run too.
    let application: Application
    do {
        application = try Application(configuration: configuration, logger: logger)
        try application.start()
    } catch let error as ConfigurationError {
        fail(error.description)
    } catch {
        fail("serve: \(error)")
    }
    logger.info(
        "listening on \(configuration.host):\(application.server.port) with \(configuration.httpThreads) threads, \(configuration.poolSize) connections"
            + (configuration.readDatabaseURL == nil ? "" : ", and as many to the read replica")
    )
    if !configuration.trustedProxies.isEmpty {
        let networks = configuration.trustedProxies.networks.map(\.description).joined(separator: ", ")
        logger.info("trusted proxies (their X-Forwarded-For and Forwarded name the client): \(networks)")
    }
    if let proxyPort = application.server.proxyPort {
        logger.info("PROXY protocol v2 on \(configuration.host):\(proxyPort)")
    }
    if let metrics = application.metricsServer {
        logger.info("metrics on \(configuration.metricsHost):\(metrics.port)/metrics")
    }
    var received: Int32 = 0
    sigwait(&stopSignals, &received)
    // The drain (docs/operations.md, "Stopping and rolling deploys"); it never aborts, so the
    // exit is 0 whatever it had to cut short (its line says what).
    logger.info(
        "signal \(received): draining: /ready answers 503; the listener closes in \(configuration.drainDelay) s, "
            + "then requests in flight have up to \(configuration.stopGrace) s")
    let report = application.stop()
    logger.info("stopped: \(report)")

case "migrate", "seed":
    do {
        let migrator = Migrator(
            conninfo: configuration.migrationDatabaseURL, directory: configuration.sqlDirectory,
            lockPolicy: try MigrationLockPolicy(environment: ProcessInfo.processInfo.environment),
            log: { logger.info($0) })
        if command == "migrate" {
            logger.info(try migrator.migrate().description)
        } else {
            logger.info("seeded from \(try migrator.seed()) files")
        }
    } catch {
        fail("\(command): \(error)")
    }

case "mail":
    // The mail sender (docs/mail.md): `focus-island mail` runs until SIGTERM; `--once` drains
    // what is due and exits.
    setenv("PGCONNECT_TIMEOUT", "3", 0)
    do {
        let settings = try MailSettings(
            environment: ProcessInfo.processInfo.environment, defaultDatabaseURL: configuration.migrationDatabaseURL)
        let sender = MailSender(
            settings: settings, templates: try MailTemplates(directory: settings.templateDirectory), logger: logger)
        try sender.run(once: arguments.dropFirst().contains("--once"))
    } catch {
        fail("mail: \(error)")
    }

case "push":
    // The push sender (docs/push.md): drains the outbox until SIGTERM or SIGINT; `--once` until
    // nothing is due.
    var stopSignals = blockStopSignals()
    setenv("PGCONNECT_TIMEOUT", "3", 0)
    let sender: PushSender
    do {
        sender = PushSender(
            settings: try PushSettings(environment: ProcessInfo.processInfo.environment),
            conninfo: configuration.databaseURL, logger: logger)
    } catch {
        fail(error.description)
    }
    runUntilStopped("push", counting: "pushes", signals: &stopSignals, run: sender.run(once:), stop: sender.stop)

case "apple-revoke":
    // The Apple revocation sender (docs/security.md, "Sign in with Apple and Google"): posts the
    // refresh tokens erasure queued to Apple's revoke endpoint until SIGTERM or SIGINT; `--once`
    // until nothing is due.
    var stopSignals = blockStopSignals()
    setenv("PGCONNECT_TIMEOUT", "3", 0)
    let sender: AppleRevokeSender
    do {
        sender = try AppleRevokeSender(settings: configuration.social, conninfo: configuration.databaseURL, logger: logger)
    } catch {
        fail(error.description)
    }
    runUntilStopped("apple-revoke", counting: "revocations", signals: &stopSignals, run: sender.run(once:), stop: sender.stop)

default:
    fail("usage: focus-island [serve|migrate|seed|mail [--once]|push [--once]|apple-revoke [--once]]")
}
