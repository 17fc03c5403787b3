public import GPIOClient
public import LEDLanguage

/// Plays the buzzer's pattern (`[buzzer]`): like the LED driver, it writes the line only when its
/// level changes and sleeps exactly until the next change, so a beep every 30 s costs two
/// wake-ups per 30 s and silence costs none.
@MainActor
public final class BuzzerDriver {
    /// What plays now (nil: silence), and whether the line is on.
    public private(set) var waveform: Waveform?
    public private(set) var isOn = false
    /// How many times it was switched on (each a beep), for status and tests.
    public private(set) var beeps = 0
    private var startedAt: Duration = .zero
    private var nextChange: Task<Void, Never>?
    private let setBuzzer: @Sendable (Bool) throws(GPIOError) -> Void
    private let monotonicNow: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let report: (GPIOError) -> Void
    private var lastReportedReason: String?

    public init(setBuzzer: @escaping @Sendable (Bool) throws(GPIOError) -> Void, monotonicNow: @escaping @Sendable () -> Duration,
                sleep: @escaping @Sendable (Duration) async throws -> Void, report: @escaping (GPIOError) -> Void) {
        self.setBuzzer = setBuzzer
        self.monotonicNow = monotonicNow
        self.sleep = sleep
        self.report = report
    }

    /// Starts `waveform` from its first step unless it is playing already; nil silences it.
    public func play(_ waveform: Waveform?) {
        let wanted = waveform == .off ? nil : waveform
        guard wanted != self.waveform else { return }
        self.waveform = wanted
        startedAt = monotonicNow()
        advance(at: startedAt)
    }

    /// The lines were requested again: write the level afresh.
    public func outputReset() {
        isOn = false
        advance(at: monotonicNow())
    }

    /// Silence, for good (shutdown).
    public func stop() {
        nextChange?.cancel()
        nextChange = nil
        waveform = nil
        write(false)
    }

    private func advance(at now: Duration) {
        nextChange?.cancel()
        nextChange = nil
        guard let waveform else {
            write(false)
            return
        }
        write(waveform.level(at: now - startedAt))
        guard let next = waveform.nextChange(after: now - startedAt).map({ startedAt + $0 }) else { return }
        nextChange = Task { [weak self, sleep] in
            do { try await sleep(next - now) } catch { return }
            self?.advance(at: next)
        }
    }

    private func write(_ on: Bool) {
        guard on != isOn else { return }
        do {
            try setBuzzer(on)
            isOn = on
            if on { beeps += 1 }
            lastReportedReason = nil
        } catch {
            if error.reason != lastReportedReason { report(error) }
            lastReportedReason = error.reason
        }
    }
}
