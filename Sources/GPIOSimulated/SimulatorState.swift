import GPIOClient
import Synchronization

/// Everything `SimulatedGPIO` guards with its lock.
struct SimulatorState {
    /// The current chip's button stream; a restored chip gets a new one.
    var button: ButtonStream
    var debouncer: ButtonDebouncer
    var rawLevel = false
    /// Bumped on every raw edge, so a settle timer started by an older edge knows it is stale.
    var edgeGeneration: UInt64 = 0
    var settleTimer: Task<Void, Never>?
    var pressInProgress = false

    var ledLevels: [Bool]
    var ledRecord: LEDChangeRing
    var lastLEDSequence: UInt64 = 0
    var ledObservers: [UInt64: @Sendable (LEDChange, [Bool]) -> Void] = [:]
    var nextObserverID: UInt64 = 0

    /// `[buzzer] line` configured: whether it sounds now, and how often it was switched on.
    var buzzerOn = false
    var buzzerOnCount = 0
    /// The optional inputs' levels (true = active), and the current chip's stream of them.
    var inputLevels: [InputLine: Bool]
    var inputs: InputStream

    var isShutDown = false
    /// Set while the chip is removed (`removeChip()`): why the button stream ended.
    var chipFailure: GPIOError?
    var chipWatchers: [UInt64: AsyncStream<String>.Continuation] = [:]

    mutating func beginPress() -> Bool {
        guard !pressInProgress, !isShutDown, chipFailure == nil else { return false }
        pressInProgress = true
        return true
    }

    /// Feeds a raw edge to the debouncer, cancelling any settle timer of an earlier edge.
    /// Returns when the new candidate level will settle, if there is one.
    mutating func feed(_ edge: RawEdge) -> Duration? {
        rawLevel = edge.level
        edgeGeneration &+= 1
        settleTimer?.cancel()
        settleTimer = nil
        return debouncer.edge(level: edge.level, at: edge.at)
    }

    mutating func setLED(_ index: Int, on: Bool, at time: Duration) {
        guard ledLevels[index] != on else { return }  // a repeated write is not a change
        ledLevels[index] = on
        lastLEDSequence += 1
        let change = LEDChange(sequence: lastLEDSequence, index: index, on: on, at: time)
        ledRecord.append(change)
        for observer in ledObservers.values { observer(change, ledLevels) }
    }
}

/// One chip's button events. Unbounded: a press must never be dropped, and a person cannot press
/// fast enough to matter.
struct ButtonStream: Sendable {
    private static let counter = Mutex<UInt64>(0)
    let id: UInt64
    let events: AsyncStream<ButtonEvent>
    let continuation: AsyncStream<ButtonEvent>.Continuation

    init() {
        id = Self.counter.withLock { $0 += 1; return $0 }
        (events, continuation) = AsyncStream.makeStream(of: ButtonEvent.self)
    }
}

/// One chip's input events (`[power]` lines); a restored chip gets a new one, which starts with
/// every input's level.
struct InputStream: Sendable {
    let events: AsyncStream<InputEvent>
    let continuation: AsyncStream<InputEvent>.Continuation

    init(levels: [InputLine: Bool], at time: Duration) {
        (events, continuation) = AsyncStream.makeStream(of: InputEvent.self)
        for line in InputLine.allCases {
            if let level = levels[line] { continuation.yield(InputEvent(line, active: level, at: time)) }
        }
    }
}
