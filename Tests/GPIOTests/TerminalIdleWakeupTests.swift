import Glibc
import GPIOSimulated
import SimulatorTerminal
import XCTest

/// An idle simulator must not wake the process: the key thread sleeps in poll without a timeout.
final class TerminalIdleWakeupTests: XCTestCase {
    func testIdleKeyThreadDoesNotWake() throws {
        var keys: [Int32] = [0, 0]
        var screen: [Int32] = [0, 0]
        guard pipe(&keys) == 0, pipe(&screen) == 0 else { throw XCTSkip("pipe failed") }
        defer { (keys + screen).forEach { close($0) } }
        let gpio = SimulatedGPIO(ledCount: 1, monotonicNow: { .zero }, sleep: { _ in })
        let terminal = try SimulatorTerminal(gpio: gpio, ledColors: [.green], input: keys[0], output: screen[1], onQuit: {})
        try terminal.start()
        defer { terminal.restore() }
        usleep(200_000)  // let the thread reach poll

        let before = try contextSwitches(ofThreadsNamed: "sim-terminal")
        usleep(1_500_000)  // a 1 Hz wake-up would show at least once
        let after = try contextSwitches(ofThreadsNamed: "sim-terminal")

        XCTAssertEqual(after, before, "the idle simulator key thread woke up")
    }
}

/// Voluntary + involuntary context switches of this process's threads with `name`, read from
/// /proc/self/task/*/status.
func contextSwitches(ofThreadsNamed name: String) throws -> Int {
    guard let tasks = opendir("/proc/self/task") else { throw XCTSkip("no /proc here") }
    defer { closedir(tasks) }
    var total = 0
    var found = false
    while let entry = readdir(tasks) {
        let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        guard tid.first?.isNumber == true,
              let comm = readText("/proc/self/task/\(tid)/comm"),
              comm.trimmingSuffixNewline == name,
              let status = readText("/proc/self/task/\(tid)/status") else { continue }
        found = true
        for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
            total += Int(line.split(separator: ":")[1].filter { !$0.isWhitespace }) ?? 0
        }
    }
    guard found else {
        XCTFail("no thread named \(name)")
        return -1
    }
    return total
}

private func readText(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 8192)
    let count = read(descriptor, &buffer, buffer.count)
    return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
}

private extension String {
    var trimmingSuffixNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
