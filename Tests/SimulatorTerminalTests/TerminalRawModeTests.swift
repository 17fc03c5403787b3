import Glibc
import GPIOClient
import GPIOSimulated
import SimulatorTerminal
import TestSupport
import XCTest

/// Runs the terminal view on a real pseudo-terminal: raw mode must be on while it runs and the
/// original settings back after `restore()`.
final class TerminalRawModeTests: XCTestCase {
    // <asm-generic/ioctls.h>, the same on x86_64 and arm: _IOW('T', 0x31, int), _IOR('T', 0x30, unsigned).
    private let unlockPseudoTerminal: UInt = 0x4004_5431  // TIOCSPTLCK
    private let pseudoTerminalNumber: UInt = 0x8004_5430  // TIOCGPTN

    /// Opens a pseudo-terminal pair: (controller, terminal the view uses).
    private func openPseudoTerminal() throws -> (controller: Int32, terminal: Int32) {
        let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard controller >= 0 else { throw XCTSkip("no /dev/ptmx here (errno \(errno))") }
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        guard ioctl(controller, unlockPseudoTerminal, &unlock) == 0,
              ioctl(controller, pseudoTerminalNumber, &number) == 0 else {
            close(controller)
            throw XCTSkip("cannot set up a pseudo-terminal (errno \(errno))")
        }
        let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard terminal >= 0 else {
            close(controller)
            throw XCTSkip("cannot open /dev/pts/\(number) (errno \(errno))")
        }
        return (controller, terminal)
    }

    private func localFlags(_ descriptor: Int32) -> tcflag_t {
        var settings = termios()
        XCTAssertEqual(tcgetattr(descriptor, &settings), 0)
        return settings.c_lflag
    }

    func testRawModeWhileRunningAndRestoredAfterwards() async throws {
        let (controller, terminalDescriptor) = try openPseudoTerminal()
        defer { close(controller); close(terminalDescriptor) }
        let before = localFlags(terminalDescriptor)
        XCTAssertNotEqual(before & tcflag_t(ICANON), 0, "a fresh terminal starts in line mode")
        let clock = InstantClock()
        let gpio = SimulatedGPIO(ledCount: 1, monotonicNow: { clock.now }, sleep: { try await clock.sleep($0) })
        let terminal = try SimulatorTerminal(
            gpio: gpio, ledColors: [.green], input: terminalDescriptor, output: terminalDescriptor, onQuit: {}
        )
        var events = gpio.client.buttonEvents.makeAsyncIterator()

        try terminal.start()
        let raw = localFlags(terminalDescriptor)
        XCTAssertEqual(raw & tcflag_t(ICANON | ECHO | ISIG), 0, "no line editing, no echo, Ctrl-C as a key")

        // A single key, without Enter, is a press: only true in raw mode.
        XCTAssertEqual(write(controller, " ", 1), 1)
        let pressed = await events.next()
        XCTAssertEqual(pressed?.kind, .pressed)

        terminal.restore()
        terminal.restore()
        XCTAssertEqual(localFlags(terminalDescriptor), before)
        gpio.shutdown()
    }
}
