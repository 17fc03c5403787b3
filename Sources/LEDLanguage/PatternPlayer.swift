/// Plays one pattern on a set of LEDs from a start time: which LED is lit when, and when the next
/// change is due. Pure, so the driver can sleep exactly until an LED changes (steady patterns never
/// wake the process).
public struct PatternPlayer: Hashable, Sendable {
    public var leds: [LED]
    public var pattern: LEDPattern
    public var startedAt: Duration

    public init(leds: [LED], pattern: LEDPattern, startedAt: Duration) {
        self.leds = leds
        self.pattern = pattern
        self.startedAt = startedAt
    }

    /// Each LED's level at monotonic time `now`, in `leds` order.
    public func levels(at now: Duration) -> [Bool] {
        leds.map { pattern.waveform(for: $0).level(at: now - startedAt) }
    }

    /// The monotonic time of the next change of any LED after `now`, or nil if all are steady.
    public func nextChange(after now: Duration) -> Duration? {
        leds.compactMap { pattern.waveform(for: $0).nextChange(after: now - startedAt) }
            .min()
            .map { startedAt + $0 }
    }
}
