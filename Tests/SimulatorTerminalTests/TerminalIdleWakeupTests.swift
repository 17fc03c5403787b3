import Glibc
import GPIOSimulated
import SimulatorTerminal
import LinuxIO
import TestSupport
import XCTest

/// An idle simulator must not wake the process: the key thread sleeps in poll without a timeout.
final class TerminalIdleWakeupTests: XCTestCase {
    func testIdleKeyThreadDoesNotWake() async throws {
        var keys: [Int32] = [0, 0]
        var screen: [Int32] = [0, 0]
        guard pipe(&keys) == 0, pipe(&screen) == 0 else { throw XCTSkip("pipe failed") }
        defer { (keys + screen).forEach { close($0) } }
        let gpio = SimulatedGPIO(ledCount: 1, monotonicNow: { .zero }, sleep: { _ in })
        let terminal = try SimulatorTerminal(gpio: gpio, ledColors: [.green], input: keys[0], output: screen[1], onQuit: {})
        try terminal.start()
        defer { terminal.restore() }
        try await waitUntilAsleepInPoll(threadNamed: "sim-terminal")

        let before = try switchesOfThread(named: "sim-terminal")
        usleep(1_500_000)  // a 1 Hz wake-up would show at least once
        let after = try switchesOfThread(named: "sim-terminal")

        XCTAssertEqual(after, before, "the idle simulator key thread woke up")
    }
}

/// The named threads' context switches (LinuxIO), failing the test if there is no such thread.
private func switchesOfThread(named name: String) throws -> Int {
    guard let count = LinuxIO.contextSwitches(ofThreadsNamed: name) else {
        XCTFail("no thread named \(name) (or no /proc here)")
        return -1
    }
    return count
}
