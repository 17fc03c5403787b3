public import GPIOClient
public import LEDLanguage

/// Plays the current indicator's pattern on the LEDs.
///
/// It writes a line only when its level changes and sleeps exactly until the next change, so a
/// steady pattern costs no wake-ups at all and a blink costs one per edge.
@MainActor
public final class LEDDriver {
    public let language: LEDLanguage
    public private(set) var indicator: Indicator?
    /// LEDs of their own (a watcher's light per dependent), each playing its waveform whatever
    /// the indicator.
    public private(set) var overlays: [String: Waveform] = [:]
    /// What each LED plays now: the indicator's pattern with the overlays over it.
    public private(set) var pattern = LEDPattern([:])
    /// What was last written successfully to each LED, in `language.leds` order.
    public private(set) var levels: [Bool]
    private var player: PatternPlayer?
    private var nextChange: Task<Void, Never>?
    private let setLED: @Sendable (Int, Bool) throws(GPIOError) -> Void
    private let monotonicNow: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let report: (GPIOError) -> Void
    /// The reason last reported, so a blink that keeps failing (no chip) is reported once.
    private var lastReportedReason: String?

    public init(
        language: LEDLanguage,
        setLED: @escaping @Sendable (Int, Bool) throws(GPIOError) -> Void,
        monotonicNow: @escaping @Sendable () -> Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void,
        report: @escaping (GPIOError) -> Void
    ) {
        self.language = language
        self.levels = Array(repeating: false, count: language.leds.count)
        self.setLED = setLED
        self.monotonicNow = monotonicNow
        self.sleep = sleep
        self.report = report
    }

    /// Starts showing `indicator` (from its first step), with `overlays` on the LEDs they name,
    /// unless that is already showing.
    public func show(_ indicator: Indicator, overlays: [String: Waveform] = [:]) {
        guard indicator != self.indicator || overlays != self.overlays else { return }
        self.indicator = indicator
        self.overlays = overlays
        let base = language.pattern(for: indicator)
        pattern = overlays.isEmpty ? base : LEDPattern(base.waveforms.merging(overlays) { $1 })
        let now = monotonicNow()
        player = PatternPlayer(leds: language.leds, pattern: pattern, startedAt: now)
        advance(at: now)
    }

    /// The LED lines were released or requested again (initially off): forget what was written
    /// and write the current pattern afresh.
    public func outputsReset() {
        levels = Array(repeating: false, count: levels.count)
        advance(at: monotonicNow())
    }

    /// Switches everything off and stops (shutdown).
    public func stop() {
        nextChange?.cancel()
        nextChange = nil
        player = nil
        indicator = nil
        overlays = [:]
        pattern = LEDPattern([:])
        write(Array(repeating: false, count: levels.count))
    }

    private func advance(at now: Duration) {
        nextChange?.cancel()
        nextChange = nil
        guard let player else { return }
        write(player.levels(at: now))
        guard let next = player.nextChange(after: now) else { return }
        nextChange = Task { [weak self, sleep] in
            do { try await sleep(next - now) } catch { return }
            self?.advance(at: next)
        }
    }

    private func write(_ wanted: [Bool]) {
        for (index, level) in wanted.enumerated() where levels[index] != level {
            do {
                try setLED(index, level)
                levels[index] = level
                lastReportedReason = nil
            } catch {
                if error.reason != lastReportedReason { report(error) }
                lastReportedReason = error.reason
            }
        }
    }
}
