import Foundation
import XCTest

/// The daemon must not wake an idle device: with steady LEDs nothing is due for hours, so its
/// threads should stay asleep. This counts the context switches of all its threads (from /proc)
/// over a quiet window; the Swift runtime's Dispatch executors alone would add one per second
/// (see BENCHMARKS.md). A measurement with a threshold, not a timing assertion.
final class IdleWakeupTests: XCTestCase {
    static let window: TimeInterval = 10
    /// Generous for a 10 s window: the fixed daemon measures 0–1; Dispatch's pool monitor gives ~10.
    static let allowance = 3

    func testIdleDaemonInASteadyPhaseStaysAsleep() throws {
        // Sanitizer runtimes run background threads that wake on their own (TSan: ~10 per second).
        try XCTSkipIf(DaemonHarness.sanitizer != nil,
                      "wake-ups are not measurable under a sanitizer")
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try device.start()
        // A press rather than `lifesignalctl check-in`: the control handler's 10 s answer timeout
        // would still fire (as a no-op) inside the window.
        try device.ctl(["sim", "press", "--hold", "150ms"])
        try device.waitUntil("the acknowledgement has ended and the green LED is steady") {
            let status = try device.status()
            return status.indicator == "checked_in" && status.leds.map(\.on) == [true, false, false]
        }
        let pid = try XCTUnwrap(device.daemon?.processIdentifier)
        // Let the status requests' work finish before counting.
        Thread.sleep(forTimeInterval: 1)
        let before = Self.contextSwitches(of: pid)
        Thread.sleep(forTimeInterval: Self.window)
        let after = Self.contextSwitches(of: pid)

        var woken = 0
        var detail: [String] = []
        for (tid, thread) in after {
            // A thread that started during the window counts in full; one that ended is gone from
            // both sides (it can only have lowered the count).
            let delta = thread.switches - (before[tid]?.switches ?? 0)
            woken += delta
            if delta > 0 { detail.append("\(thread.name)[\(tid)]: \(delta)") }
        }
        XCTAssertGreaterThan(after.count, 0, "no threads read from /proc/\(pid)/task")
        XCTAssertLessThanOrEqual(
            woken, Self.allowance,
            "the idle daemon woke \(woken) times in \(Int(Self.window)) s (\(detail.joined(separator: ", ")))"
        )
        XCTAssertEqual(device.stop(), 0)
    }

    /// Voluntary + involuntary context switches per thread id, with the thread's name.
    static func contextSwitches(of pid: Int32) -> [Int: (name: String, switches: Int)] {
        let tasks = "/proc/\(pid)/task"
        var result: [Int: (name: String, switches: Int)] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let tid = Int(entry),
                  let status = try? String(contentsOfFile: "\(tasks)/\(entry)/status", encoding: .utf8) else { continue }
            var name = "?"
            var switches = 0
            for line in status.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                switch parts[0] {
                case "Name": name = value
                case "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches": switches += Int(value) ?? 0
                default: break
                }
            }
            result[tid] = (name, switches)
        }
        return result
    }
}
