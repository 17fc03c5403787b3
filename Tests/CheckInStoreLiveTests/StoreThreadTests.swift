import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import Glibc
import LinuxIO
import Synchronization
import TestSupport
import XCTest

/// Every SQLite call runs on the store's own thread, never on the caller's, and that thread
/// sleeps when idle.
final class StoreThreadTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    func testTheDatabaseRunsOnItsOwnThreadNotTheCallers() async throws {
        let executor = try SerialThreadExecutor(name: "store-thread-t")
        let database = try await CheckInDatabase.open(path: path, on: executor)
        _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))

        XCTAssertFalse(executor.isOnThread, "the test itself does not run on the store thread")
        let (onStoreThread, name) = await Self.whereItRuns(database)
        XCTAssertTrue(onStoreThread)
        XCTAssertEqual(name, "store-thread-t")
        await database.close()
    }

    /// Runs isolated to the database: where its methods run.
    private static func whereItRuns(_ database: isolated CheckInDatabase) -> (Bool, String) {
        (database.executor.isOnThread, procText("/proc/thread-self/comm"))  // the kernel's name for this thread
    }

    func testAnIdleStoreThreadDoesNotWake() async throws {
        let name = "store-idle-t"
        let database = try await CheckInDatabase.open(path: path, on: try SerialThreadExecutor(name: name))
        for step in 0..<5 {
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: Int64(step)), source: .button))
        }
        await database.waitUntilIdle()  // the writes and the idle checkpoint after them are done
        try await waitUntilAsleepInPoll(threadNamed: name)  // it resumed us just before going to sleep

        let before = try XCTUnwrap(contextSwitches(ofThreadsNamed: name), "no thread named \(name)")
        usleep(1_500_000)  // a 1 Hz wake-up would show at least once
        let after = try XCTUnwrap(contextSwitches(ofThreadsNamed: name))
        XCTAssertEqual(after, before, "the idle store thread woke up")
        await database.close()
    }

    func testTheThreadEndsOnceTheDatabaseIsGone() async throws {
        let name = "store-ends-t"
        do {
            let database = try await CheckInDatabase.open(path: path, on: try SerialThreadExecutor(name: name))
            _ = try await database.count()
            XCTAssertNotNil(contextSwitches(ofThreadsNamed: name))
        }
        // The last reference went: the actor's deinit runs on the thread, which then ends.
        try await waitUntil("the store thread has ended") { contextSwitches(ofThreadsNamed: name) == nil }
        XCTAssertFalse(directory.exists(path + "-wal"), "closing (on the store thread) removed the WAL")
    }

    func testWorkRunsInOrderAndPerformReturnsOrThrows() async throws {
        let executor = try SerialThreadExecutor(name: "store-order-t")
        let first = await executor.perform { () -> Bool in executor.isOnThread }
        XCTAssertTrue(first)
        struct Refusal: Error, Equatable {}
        do {
            try await executor.perform { () throws(Refusal) in throw Refusal() }
            XCTFail("perform must rethrow")
        } catch {
            XCTAssertEqual(error, Refusal())
        }
        let blocking = executor.performAndWait { () -> Bool in executor.isOnThread }
        XCTAssertTrue(blocking)
    }

    func testIdleWorkRunsAfterTheQueueHasDrained() async throws {
        let executor = try SerialThreadExecutor(name: "store-idle-w")
        let log = Log()
        executor.whenIdle { log.append("idle") }
        // Three closures queued back to back: idle work runs once they have all run, not between.
        async let one: Void = executor.perform { log.append("1") }
        async let two: Void = executor.perform { log.append("2") }
        async let three: Void = executor.perform { log.append("3") }
        _ = await (one, two, three)
        await executor.waitUntilIdle()
        let entries = log.entries
        XCTAssertEqual(entries.filter { $0 != "idle" }.sorted(), ["1", "2", "3"])
        XCTAssertEqual(entries.last, "idle")
        // Idle work follows work, never runs on its own: nothing queued, nothing more logged.
        let count = entries.count
        await executor.waitUntilIdle()
        XCTAssertEqual(log.entries.count, count + 1, "waiting counts as work: exactly one more idle run")
    }
}

private final class Log: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var entries: [String] { lines.withLock { $0 } }
}
