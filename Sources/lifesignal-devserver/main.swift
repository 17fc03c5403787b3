// lifesignal-devserver: the reference LifeSignal backend for development and tests (127.0.0.1 only).
import ArgumentParser
import DevServer
import Glibc
import LinuxIO

struct DevServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifesignal-devserver",
        abstract: "The reference device API backend on 127.0.0.1, for development and tests.",
        discussion: """
            Serves docs/device-api.yaml over plain HTTP on 127.0.0.1 only, storing check-ins (de-duplicated \
            by id) and settings in its own SQLite file. Prints "listening on http://127.0.0.1:PORT" once ready.

            Admin API (no token; loopback only): POST /admin/faults (FaultUpdate: schedule of faults \
            status|drop|dropAfterStore|malformedReply|delay, errorRate, errorStatus, latencyMilliseconds, \
            clear), GET /admin/check-ins[?device=ID], GET /admin/stats, PUT /admin/settings?device=ID, \
            POST /admin/pings?device=ID (a responder pings the device: {"responderName": "Alice"}), \
            GET /admin/pings?device=ID, GET /admin/ping-responses?device=ID, GET /admin/healthchecks-pings, \
            GET /admin/healthchecks-checks.

            Dependents: a watcher device follows others (PUT /v1/dependents/ID), reads their status as \
            the server derives it from their check-ins, alerts, settings and requests (GET /v1/dependents; \
            silent after 30 minutes without a request), pings them and says "I'm on it".

            healthchecks (docs/healthchecks.md): pings at /ping/<uuid> and /ping/<ping-key>/<slug> (with \
            /fail, /start, /log or an exit status), and the management API v3 subset at /api/v3/checks/ \
            (X-Api-Key). The project's ping key is lifesignal-dev-ping-key; its API keys are \
            rw-lifesignal-dev-0123456789abcd (read-write) and ro-lifesignal-dev-0123456789abcd (read-only).
            """
    )

    @Option(name: .long, help: "Port on 127.0.0.1 (0 = any free port).")
    var port: UInt16 = 8080

    @Option(name: .long, help: "The server's SQLite file (created if missing).")
    var database = "lifesignal-devserver.sqlite"

    @Option(name: .long, parsing: .singleValue, help: "A device and its bearer token, as DEVICE_ID=TOKEN (repeatable).")
    var token: [String] = []

    @Option(name: .long, help: "A file of 'DEVICE_ID TOKEN' lines (# comments allowed).")
    var tokenFile: String?

    @Option(name: .long, parsing: .singleValue,
            help: "A device's name, as DEVICE_ID=NAME (repeatable; GET /v1/device, GET /v1/dependents).")
    var name: [String] = []

    @Option(name: .long, help: "Probability 0…1 that a device request fails with --error-status.")
    var errorRate = 0.0

    @Option(name: .long, help: "The status of random failures.")
    var errorStatus = 503

    @Option(name: .long, help: "Milliseconds added to every device request.")
    var latency = 0

    func run() throws {
        var tokens: [String: String] = [:]
        for pair in token {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--token must be DEVICE_ID=TOKEN, not \(pair)")
            }
            tokens[String(parts[1])] = String(parts[0])
        }
        if let tokenFile {
            guard let text = readSmallFile(tokenFile) else {
                throw ValidationError("cannot read --token-file \(tokenFile): \(errnoText(errno))")
            }
            for line in text.split(whereSeparator: { $0.isNewline }) where !line.hasPrefix("#") {
                let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard parts.count == 2 else { throw ValidationError("\(tokenFile): expected 'DEVICE_ID TOKEN', got '\(line)'") }
                tokens[String(parts[1])] = String(parts[0])
            }
        }
        guard !tokens.isEmpty else { throw ValidationError("give at least one --token DEVICE_ID=TOKEN or a --token-file") }
        var names: [String: String] = [:]
        for pair in name {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--name must be DEVICE_ID=NAME, not \(pair)")
            }
            guard tokens.values.contains(String(parts[0])) else {
                throw ValidationError("--name \(pair): no --token names device \(parts[0])")
            }
            names[String(parts[0])] = String(parts[1])
        }

        // Block the stop signals before any thread starts, so every thread inherits the mask and
        // sigwait below receives them.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let server: DevServer
        do {
            server = try DevServer(DevServer.Options(
                databasePath: database, port: port, tokens: tokens,
                faults: FaultUpdate(errorRate: errorRate, errorStatus: errorStatus, latencyMilliseconds: latency), names: names))
        } catch {
            printError("lifesignal-devserver: \(error.message)")
            throw ExitCode(71)
        }
        // Written straight to the descriptor: a test reading the pipe must see it at once.
        var ready = "listening on \(server.baseURL)\n"
        ready.withUTF8 { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        var received: Int32 = 0
        sigwait(&signals, &received)
        server.stop()
    }
}

func readSmallFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 1 << 20)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    return count < 0 ? nil : String(decoding: bytes.prefix(count), as: UTF8.self)
}

func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

DevServerCommand.main()
