public import GPIOSimulated
import Glibc
public import LinuxIO
import Synchronization

/// The simulated board on the terminal the daemon runs in: keys press the button, one status line
/// shows the LEDs in colour with a caption from the daemon.
///
/// Keys: space/Enter = short press, `l` = long press, `q` or Ctrl-C = `onQuit` (the daemon should
/// shut down, calling `restore()`). Keys are read on a dedicated thread that polls the input and an
/// eventfd, so `restore()` stops it at once and nothing wakes while no key is pressed.
///
/// Everything else that writes to the terminal must go through `printLine(_:)`, which clears the
/// status line, prints the line above it and redraws it; otherwise the two garble each other.
public final class SimulatorTerminal: Sendable {
    public let shortPressHold: Duration
    public let longPressHold: Duration

    private let gpio: SimulatedGPIO
    private let ledColors: [LEDColor]
    private let input: Int32
    private let output: Int32
    private let useColor: Bool
    private let onQuit: @Sendable () -> Void
    private let wakeup: WakeupEvent
    private let state: Mutex<ScreenState>
    /// Serialises writes, so a log line and a redraw never interleave their bytes.
    private let outputLock = Mutex(())

    private struct ScreenState {
        var levels: [Bool]
        var caption = ""
        var needsRedraw = false
        var phase = Phase.idle
        var quitRequested = false
        var observation: LEDObservation?
        var thread: DedicatedThread?
    }

    private enum Phase { case idle, running, restored }

    /// - Parameters:
    ///   - gpio: the simulated board whose button the keys press and whose LEDs are drawn.
    ///   - ledColors: colour per LED index (missing entries are drawn in the default colour).
    ///   - input/output: the terminal's descriptors (0 = stdin, 1 = stdout by default); not closed here.
    ///   - useColor: false for plain glyphs (e.g. when `NO_COLOR` is set).
    ///   - onQuit: called once, on the key thread, when `q` or Ctrl-C is pressed.
    public init(
        gpio: SimulatedGPIO,
        ledColors: [LEDColor],
        shortPressHold: Duration = .milliseconds(150),
        longPressHold: Duration = .seconds(3),
        input: Int32 = 0,
        output: Int32 = 1,
        useColor: Bool = true,
        onQuit: @escaping @Sendable () -> Void
    ) throws(SystemError) {
        self.gpio = gpio
        self.ledColors = ledColors
        self.shortPressHold = shortPressHold
        self.longPressHold = longPressHold
        self.input = input
        self.output = output
        self.useColor = useColor
        self.onQuit = onQuit
        self.wakeup = try WakeupEvent()
        self.state = Mutex(ScreenState(levels: gpio.ledLevels))
    }

    /// Whether both descriptors are terminals, i.e. whether the daemon should use this view.
    public static func isInteractive(input: Int32 = 0, output: Int32 = 1) -> Bool {
        isatty(input) == 1 && isatty(output) == 1
    }

    /// Puts the input terminal in raw mode (if it is a terminal), draws the status line, and starts
    /// following keys and LEDs. Call once.
    public func start() throws(SystemError) {
        let alreadyStarted = state.withLock { state in
            guard state.phase == .idle else { return true }
            state.phase = .running
            return false
        }
        guard !alreadyStarted else { return }
        if isatty(input) == 1 { try TerminalMode.enterRaw(input) }
        let observation = gpio.observeLEDs { [weak self] _, levels in self?.ledsChanged(levels) }
        let thread: DedicatedThread
        do {
            thread = try DedicatedThread.start(name: "sim-terminal") { self.readKeys() }
        } catch {
            observation.cancel()
            TerminalMode.restore()
            throw error
        }
        // Read outside our lock: the simulator calls `ledsChanged` (which takes our lock) while
        // holding its own, so taking them in the other order here could deadlock.
        let levels = gpio.ledLevels
        state.withLock { state in
            state.observation = observation
            state.thread = thread
            state.levels = levels
        }
        write(hideCursor + statusLine())
    }

    /// Sets the text after the LEDs, e.g. "checked in · deadline in 23 h 59 min".
    public func setCaption(_ caption: String) {
        let changed = state.withLock { state in
            defer { state.caption = caption }
            return state.caption != caption && state.phase == .running
        }
        if changed { write(statusLine()) }
    }

    /// Prints `line` above the status line and redraws the status line under it. Safe from any
    /// thread; before `start()` and after `restore()` it just prints the line.
    public func printLine(_ line: String) {
        let running = state.withLock { $0.phase == .running }
        write(clearLine + line + "\n" + (running ? statusLine() : ""))
    }

    /// Stops the key thread, clears the status line, shows the cursor and gives the terminal its
    /// settings back. Idempotent; call it on every shutdown path (an atexit handler also restores
    /// the settings if the process exits without it).
    public func restore() {
        let (observation, thread) = state.withLock { state -> (LEDObservation?, DedicatedThread?) in
            guard state.phase != .restored else { return (nil, nil) }
            let wasRunning = state.phase == .running
            state.phase = .restored
            defer { state.observation = nil; state.thread = nil }
            return wasRunning ? (state.observation, state.thread) : (nil, nil)
        }
        guard let thread else { return }
        observation?.cancel()
        wakeup.signal()
        thread.join()
        write(clearLine + showCursor)
        TerminalMode.restore()
    }

    deinit {
        TerminalMode.restore()
    }

    // MARK: Key thread

    private func readKeys() {
        var buffer = [UInt8](repeating: 0, count: 64)
        var inputOpen = true
        while true {
            var fds = [
                pollfd(fd: inputOpen ? input : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return  // nothing sensible left to do; the daemon keeps running without keys
            }
            if fds[1].revents != 0 {
                wakeup.drain()
                let (phase, redraw) = state.withLock { state in
                    defer { state.needsRedraw = false }
                    return (state.phase, state.needsRedraw)
                }
                guard phase == .running else { return }
                if redraw { write(statusLine()) }
            }
            if fds[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard count > 0 else {
                    inputOpen = false  // end of input (or it failed): keep drawing LEDs, stop reading
                    continue
                }
                for byte in buffer.prefix(count) {
                    if let command = KeyCommand(byte: byte) { perform(command) }
                }
            }
        }
    }

    private func perform(_ command: KeyCommand) {
        switch command {
        case .shortPress:
            let gpio = self.gpio, hold = shortPressHold
            Task { await gpio.press(hold: hold) }
        case .longPress:
            let gpio = self.gpio, hold = longPressHold
            Task { await gpio.press(hold: hold) }
        case .quit:
            let first = state.withLock { state in
                defer { state.quitRequested = true }
                return !state.quitRequested
            }
            if first { onQuit() }
        }
    }

    /// Called under the simulator's lock: only record and wake the key thread, which redraws.
    private func ledsChanged(_ levels: [Bool]) {
        state.withLock { state in
            state.levels = levels
            state.needsRedraw = true
        }
        wakeup.signal()
    }

    // MARK: Drawing

    private let clearLine = "\r\u{1B}[2K"
    private let hideCursor = "\u{1B}[?25l"
    private let showCursor = "\u{1B}[?25h"

    private func statusLine() -> String {
        let (levels, caption) = state.withLock { ($0.levels, $0.caption) }
        return clearLine + StatusLine.render(
            levels: levels, colors: ledColors, caption: caption, width: terminalWidth(), useColor: useColor
        )
    }

    private func terminalWidth() -> Int? {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Writes all of `text`; a terminal that went away is not worth failing the daemon for.
    private func write(_ text: String) {
        outputLock.withLock { _ in
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(output, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                bytes = bytes.dropFirst(written)
            }
        }
    }
}
