import Glibc
import Logging
import ServiceTree
import Synchronization
import TestSupport
import XCTest

/// The daemon's shutdown order: a service is asked only after every service started after it has
/// ended, whatever starts the shutdown; nothing is cancelled instead of being stopped.
final class ServiceTreeTests: XCTestCase {
    func testServicesStopInReverseOrderEachAwaitedBeforeTheNextIsAsked() async throws {
        let events = Events()
        let slowStop = Gate()
        slowStop.shut()
        let services = (0..<3).map { Recording(name: "s\($0)", events: events, stopGate: $0 == 2 ? slowStop : nil) }
        let tree = ServiceTree(services: services, shutdownSignals: [], logger: quietLogger)
        let running = Task { try await tree.run() }
        try await waitUntil("every service has started") { events.all.filter { $0.hasSuffix("started") }.count == 3 }

        tree.triggerGracefulShutdown()
        try await waitUntil("the last service is asked and holds its stop") { slowStop.waiting == 1 }
        XCTAssertFalse(events.all.contains("s1 asked"), "s1 is asked only once s2 has stopped")
        slowStop.open()
        try await running.value

        XCTAssertEqual(events.all.filter { !$0.hasSuffix("started") },
                       ["s2 asked", "s2 stopped", "s1 asked", "s1 stopped", "s0 asked", "s0 stopped"])
    }

    func testAFailingServiceStopsTheRestInOrderAndItsErrorIsThrown() async throws {
        let events = Events()
        let failure = Gate()
        failure.shut()
        let services: [any Service] = [
            Recording(name: "store", events: events),
            Failing(name: "socket", gate: failure),
            Recording(name: "systemd", events: events),
        ]
        let tree = ServiceTree(services: services, shutdownSignals: [], logger: quietLogger)
        let running = Task { try await tree.run() }
        try await waitUntil("both others have started") { events.all.count == 2 }
        failure.open()

        do {
            try await running.value
            XCTFail("the socket's failure is thrown")
        } catch let error as Failing.Failure {
            XCTAssertEqual(error.service, "socket")
        }
        XCTAssertEqual(events.all.filter { !$0.hasSuffix("started") },
                       ["systemd asked", "systemd stopped", "store asked", "store stopped"])
    }

    func testAServiceThatEndsByItselfStopsTheRestWithoutAnError() async throws {
        let events = Events()
        let quit = Gate()
        quit.shut()
        let services: [any Service] = [Recording(name: "device", events: events), Ending(gate: quit),
                                       Recording(name: "socket", events: events)]
        let tree = ServiceTree(services: services, shutdownSignals: [], logger: quietLogger)
        let running = Task { try await tree.run() }
        try await waitUntil("the others have started") { events.all.count == 2 }
        quit.open()
        try await running.value
        XCTAssertEqual(events.all.filter { !$0.hasSuffix("started") },
                       ["socket asked", "socket stopped", "device asked", "device stopped"])
    }

    func testAShutdownAskedBeforeRunStopsEveryServiceOnceStarted() async throws {
        let events = Events()
        let tree = ServiceTree(services: [Recording(name: "a", events: events), Recording(name: "b", events: events)],
                               shutdownSignals: [], logger: quietLogger)
        tree.triggerGracefulShutdown()
        try await tree.run()
        XCTAssertEqual(Set(events.all), ["a started", "b started", "a asked", "b asked", "a stopped", "b stopped"])
        XCTAssertEqual(events.all.filter { !$0.hasSuffix("started") }, ["b asked", "b stopped", "a asked", "a stopped"])
    }

    func testASignalStartsTheShutdownAndIsLogged() async throws {
        let events = Events()
        let log = CapturedLog()
        let tree = ServiceTree(services: [Recording(name: "a", events: events), Recording(name: "b", events: events)],
                               shutdownSignals: [SIGUSR1], logger: log.logger)
        let running = Task { try await tree.run() }
        try await waitUntil("both have started") { events.all.count == 2 }
        kill(getpid(), SIGUSR1)  // process-directed, as systemd's SIGTERM is
        try await running.value
        XCTAssertEqual(events.all.filter { !$0.hasSuffix("started") }, ["b asked", "b stopped", "a asked", "a stopped"])
        XCTAssertEqual(log.lines, ["notice stopping: SIGUSR1"])
    }

    func testATreeRunsOnce() async throws {
        let tree = ServiceTree(services: [Recording(name: "a", events: Events())], shutdownSignals: [], logger: quietLogger)
        tree.triggerGracefulShutdown()
        try await tree.run()
        do {
            try await tree.run()
            XCTFail("a second run is refused")
        } catch let error as ServiceTreeError {
            XCTAssertEqual(error, .alreadyRan)
        }
    }

    func testCancellingTheRunCancelsEveryServiceAndWaitsForThem() async throws {
        let events = Events()
        let tree = ServiceTree(services: [Recording(name: "a", events: events), Recording(name: "b", events: events)],
                               shutdownSignals: [], logger: quietLogger)
        let running = Task { try await tree.run() }
        try await waitUntil("both have started") { events.all.count == 2 }
        running.cancel()
        try await running.value
        XCTAssertEqual(Set(events.all), ["a started", "b started", "a cancelled", "b cancelled", "a stopped", "b stopped"])
    }

    func testCancelWhenGracefulShutdownCancelsTheOperationOnShutdownAndReturnsWhenItEnds() async throws {
        let events = Events()
        let tree = ServiceTree(services: [Watching(events: events)], shutdownSignals: [], logger: quietLogger)
        let running = Task { try await tree.run() }
        try await waitUntil("the operation runs") { events.all == ["short operation ended", "long operation started"] }
        tree.triggerGracefulShutdown()
        try await running.value
        XCTAssertEqual(events.all, ["short operation ended", "long operation started", "long operation cancelled"])
    }

    func testGracefulShutdownOutsideATreeEndsOnlyByCancellation() async {
        let waiting = Task { () -> Bool in
            do {
                try await gracefulShutdown()
                return false
            } catch {
                return error is CancellationError
            }
        }
        waiting.cancel()
        let cancelled = await waiting.value
        XCTAssertTrue(cancelled)
    }
}

// MARK: - Services that say what happens to them

private final class Events: Sendable {
    private let list = Mutex<[String]>([])
    func append(_ event: String) { list.withLock { $0.append(event) } }
    var all: [String] { list.withLock { $0 } }
}

private struct Recording: Service, CustomStringConvertible {
    let name: String
    let events: Events
    var stopGate: Gate?
    var description: String { name }

    func run() async {
        events.append("\(name) started")
        do {
            try await gracefulShutdown()
            events.append("\(name) asked")
        } catch {
            events.append("\(name) cancelled")
        }
        await stopGate?.pass()
        events.append("\(name) stopped")
    }
}

private struct Failing: Service, CustomStringConvertible {
    struct Failure: Error { var service: String }
    let name: String
    let gate: Gate
    var description: String { name }

    func run() async throws {
        await gate.pass()
        throw Failure(service: name)
    }
}

private struct Ending: Service, CustomStringConvertible {
    let gate: Gate
    var description: String { "terminal" }

    func run() async {
        await gate.pass()
    }
}

private struct Watching: Service {
    let events: Events

    func run() async {
        await cancelWhenGracefulShutdown { events.append("short operation ended") }
        await cancelWhenGracefulShutdown {
            events.append("long operation started")
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                events.append("long operation cancelled")
            }
        }
    }
}

private let quietLogger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

/// What the tree logs, as "level message" lines.
private final class CapturedLog: Sendable {
    private let captured = Mutex<[String]>([])
    var lines: [String] { captured.withLock { $0 } }

    var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = .info
        return logger
    }

    fileprivate func append(_ line: String) { captured.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.append("\(event.level) \(event.message)")
        }
    }
}
