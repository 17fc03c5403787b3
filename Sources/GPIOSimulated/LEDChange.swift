/// One change of an LED output, as the simulated hardware saw it.
public struct LEDChange: Hashable, Sendable {
    /// Counts every recorded change from 1, so a reader can tell whether the ring dropped some.
    public var sequence: UInt64
    public var index: Int
    public var on: Bool
    /// Monotonic time of the change.
    public var at: Duration

    public init(sequence: UInt64, index: Int, on: Bool, at: Duration) {
        self.sequence = sequence
        self.index = index
        self.on = on
        self.at = at
    }
}

/// The most recent LED changes, oldest first, bounded so a blinking pattern running for months
/// cannot grow memory.
struct LEDChangeRing {
    let capacity: Int
    private var storage: [LEDChange] = []
    private var head = 0  // index of the oldest entry once full

    init(capacity: Int) {
        precondition(capacity > 0, "the LED record needs room for at least one change")
        self.capacity = capacity
        storage.reserveCapacity(capacity)
    }

    mutating func append(_ change: LEDChange) {
        if storage.count < capacity {
            storage.append(change)
        } else {
            storage[head] = change
            head = (head + 1) % capacity
        }
    }

    var inOrder: [LEDChange] {
        Array(storage[head...] + storage[..<head])
    }
}
