import Glibc
import GPIOClient
import GPIOSimulated
import SimulatorTerminal
import Synchronization
import TestSupport
import XCTest

/// Drives the terminal view through pipes (not a TTY, so raw mode is skipped): keys in, screen out.
final class SimulatorTerminalTests: XCTestCase {
    private struct Pipe {
        var read: Int32
        var write: Int32
    }

    private func makePipe() throws -> Pipe {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw XCTSkip("pipe failed: errno \(errno)") }
        return Pipe(read: fds[0], write: fds[1])
    }

    private final class Screen: Sendable {
        let descriptor: Int32
        let text = Mutex("")
        init(descriptor: Int32) {
            self.descriptor = descriptor
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        /// Reads whatever has been written so far and returns the whole screen output.
        func contents() -> String {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                guard count > 0 else { break }
                text.withLock { $0 += String(decoding: buffer.prefix(count), as: UTF8.self) }
            }
            return text.withLock { $0 }
        }
    }

    func testKeysPressTheButtonAndTheScreenFollowsLEDsAndCaption() async throws {
        let keys = try makePipe()
        let screenPipe = try makePipe()
        defer { [keys.read, keys.write, screenPipe.read, screenPipe.write].forEach { close($0) } }
        let screen = Screen(descriptor: screenPipe.read)
        let clock = InstantClock()
        let gpio = SimulatedGPIO(ledCount: 2, monotonicNow: { clock.now }, sleep: { try await clock.sleep($0) })
        let quits = Mutex(0)
        let terminal = try SimulatorTerminal(
            gpio: gpio, ledColors: [.green, .red], input: keys.read, output: screenPipe.write,
            useColor: false, onQuit: { quits.withLock { $0 += 1 } }
        )
        var events = gpio.client.buttonEvents.makeAsyncIterator()

        try terminal.start()
        XCTAssertEqual(write(keys.write, " ", 1), 1)
        let pressed = await events.next()
        let released = await events.next()
        XCTAssertEqual(pressed?.kind, .pressed)
        XCTAssertEqual(released?.kind, .released)
        if let pressed, let released {
            XCTAssertEqual(released.at - pressed.at, terminal.shortPressHold)
        }

        try gpio.setLED(1, on: true)
        try await waitUntil("the LED is drawn") { screen.contents().hasSuffix("○ ●") }
        terminal.setCaption("checked in")
        try await waitUntil("the caption is drawn") { screen.contents().hasSuffix("○ ●  checked in") }
        terminal.printLine("a log line")
        try await waitUntil("the log line is printed above a redrawn status line") {
            screen.contents().hasSuffix("a log line\n\r\u{1B}[2K○ ●  checked in")
        }

        XCTAssertEqual(write(keys.write, "q", 1), 1)
        try await waitUntil("quit is requested") { quits.withLock { $0 } == 1 }

        terminal.restore()
        terminal.restore()  // the daemon may call it from several shutdown paths
        XCTAssertTrue(screen.contents().hasSuffix("\r\u{1B}[2K\u{1B}[?25h"), "status line cleared, cursor shown")
        gpio.shutdown()
    }

    func testLongPressHoldsForTheConfiguredTime() async throws {
        let keys = try makePipe()
        let screenPipe = try makePipe()
        defer { [keys.read, keys.write, screenPipe.read, screenPipe.write].forEach { close($0) } }
        let clock = InstantClock()
        let gpio = SimulatedGPIO(ledCount: 1, monotonicNow: { clock.now }, sleep: { try await clock.sleep($0) })
        let terminal = try SimulatorTerminal(
            gpio: gpio, ledColors: [.green], longPressHold: .seconds(4),
            input: keys.read, output: screenPipe.write, onQuit: {}
        )
        var events = gpio.client.buttonEvents.makeAsyncIterator()
        try terminal.start()
        defer { terminal.restore() }

        XCTAssertEqual(write(keys.write, "l", 1), 1)
        let pressed = await events.next()
        let released = await events.next()

        XCTAssertEqual(pressed?.kind, .pressed)
        XCTAssertEqual(released?.kind, .released)
        if let pressed, let released { XCTAssertEqual(released.at - pressed.at, .seconds(4)) }
    }

    func testRestoreWithoutStartIsHarmless() throws {
        let gpio = SimulatedGPIO(ledCount: 1, monotonicNow: { .zero }, sleep: { _ in })
        let terminal = try SimulatorTerminal(gpio: gpio, ledColors: [.green], onQuit: {})
        terminal.restore()
        terminal.restore()
    }
}
