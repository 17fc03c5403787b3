import Glibc
import XCTest

/// Waiting for the code under test to get somewhere: the condition is polled until it holds, and
/// only a deadline (generous, stretched under a sanitizer) ends the wait with a failure. The time it
/// took is never asserted: timing targets live in benchmarks.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var description: String

    public init(_ what: String) {
        description = "timed out waiting until \(what)"
    }
}

/// Polls `condition` every `interval` until it holds; fails the test and throws `WaitTimedOut`
/// after `timeout`. Runs on the caller's actor, so the condition may read main-actor state.
public func waitUntil(
    _ what: String,
    timeout: Duration = .seconds(20),
    interval: Duration = .milliseconds(5),
    file: StaticString = #filePath, line: UInt = #line,
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout * Sanitizer.slowdown
    while true {
        if try await condition() { return }
        guard clock.now < deadline else {
            XCTFail("timed out waiting until \(what)", file: file, line: line)
            throw WaitTimedOut(what)
        }
        try await Task.sleep(for: interval)
    }
}

/// The same for synchronous callers waiting on another process or thread: the calling thread
/// sleeps between polls. `details` is added to the failure (a daemon's log, say).
public func waitUntilBlocking(
    _ what: String,
    timeout: Duration = .seconds(20),
    interval: Duration = .milliseconds(20),
    file: StaticString = #filePath, line: UInt = #line,
    details: () -> String = { "" },
    _ condition: () throws -> Bool
) throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout * Sanitizer.slowdown
    while true {
        if try condition() { return }
        guard clock.now < deadline else {
            let more = details()
            XCTFail("timed out waiting until \(what)" + (more.isEmpty ? "" : "\n\(more)"), file: file, line: line)
            throw WaitTimedOut(what)
        }
        var pause = timespec(tv_sec: Int(interval.components.seconds),
                             tv_nsec: Int(interval.components.attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
    }
}
