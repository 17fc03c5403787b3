import GPIOClient
import Logging
import Synchronization

/// How the supervisor reaches the GPIO hardware, so the same logic runs on libgpiod and on the
/// simulated board (whose chip tests can remove and restore).
struct GPIOConnector: Sendable {
    /// What is being waited for, for messages: "chip 'pinctrl-rp1'".
    var chipDescription: String
    /// Opens the chip and requests the lines.
    var connect: @Sendable () throws(GPIOError) -> GPIOClient
    /// Starts watching for chips appearing or changing (inotify on /dev); nil if that is not
    /// possible, and then the supervisor retries on a back-off instead.
    var watchChips: @Sendable () -> ChipWatch?
    /// Whether a failure only a new or changed chip can cure: wait for one without retrying
    /// on a timer (a missing chip). Other failures (permission, busy line) also retry on a back-off.
    var onlyAChipChangeHelps: @Sendable (GPIOError) -> Bool
}

/// A running watch for chip changes; `stop()` ends it.
struct ChipWatch: Sendable {
    /// The names of chips that appeared, changed or went away.
    var changes: AsyncStream<String>
    var stop: @Sendable () -> Void
}

/// Keeps the GPIO lines held across a chip that is missing at start or goes away while running.
///
/// A daemon that exits when its chip is missing restarts in a loop under systemd and, while it is
/// down, answers nobody. Instead the daemon stays up and this waits — on inotify, not polling —
/// for the chip to appear, then requests the lines and carries on. When the chip goes away while
/// running (its button stream ends with a failure) it reports the fault and waits again.
///
/// The rest of the daemon sees one `GPIOClient` (`client`) that survives reconnections: `setLED`
/// writes to the lines currently held (and fails, saying what is awaited, while none are).
@MainActor
final class GPIOSupervisor {
    enum Condition: Equatable, Sendable {
        case connected
        /// Waiting for the chip; the failure says what is missing and why.
        case waiting(GPIOError)
    }

    private(set) var condition: Condition
    private nonisolated let connector: GPIOConnector
    /// What is being waited for, for messages: "chip 'pinctrl-rp1'".
    nonisolated var chipDescription: String { connector.chipDescription }
    private let logger: Logger
    private let sleep: @Sendable (Duration) async throws -> Void
    /// The lines currently held, shared with `client.setLED` (called off the main actor too).
    private nonisolated let held: HeldLines
    private var loop: Task<Void, Never>?
    /// Why the lines were lost, while waiting for the chip after that.
    private var lostFailure: GPIOError?

    static let firstBackOff = Duration.seconds(1)
    static let maximumBackOff = Duration.seconds(60)

    /// `initial` is the outcome of the first attempt, made synchronously at start-up so that
    /// configuration mistakes (a wrong line name, a busy line) still end start-up with exit 69.
    init(initial: Result<GPIOClient, GPIOError>, connector: GPIOConnector, logger: Logger,
         sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.connector = connector
        self.logger = logger
        self.sleep = sleep
        switch initial {
        case let .success(client):
            held = HeldLines(client: client)
            condition = .connected
        case let .failure(error):
            held = HeldLines(client: nil)
            held.awaited = error
            condition = .waiting(error)
            logger.error("waiting for GPIO \(connector.chipDescription): \(error)")
        }
    }

    /// The GPIO as the LED driver and the control handler use it. Its `buttonEvents` is empty:
    /// button events go to `start(onButton:)`'s closure, without an extra hop.
    nonisolated var client: GPIOClient {
        GPIOClient(
            buttonEvents: AsyncStream { $0.finish() },
            setLED: { [held, chip = connector.chipDescription] index, on throws(GPIOError) in
                guard let client = held.client else {
                    throw GPIOError(
                        operation: "set GPIO line", target: "LED #\(index)",
                        reason: "waiting for GPIO \(chip)" + (held.awaited.map { " (\($0.reason))" } ?? ""))
                }
                try client.setLED(index, on)
            },
            shutdown: { [held] in held.client?.shutdown() })
    }

    /// Runs the button loop: delivers events, notices a chip that goes away, waits for it and
    /// re-requests the lines. `changed` runs on every change of `condition`.
    func start(onButton: @escaping @MainActor (ButtonEvent) -> Void,
               changed: @escaping @MainActor (Condition) -> Void) {
        loop = Task { [weak self] in
            while let self, !Task.isCancelled {
                guard let client = await self.connected(changed: changed) else { return }
                for await event in client.buttonEvents { onButton(event) }
                if Task.isCancelled { return }
                self.lost(client, changed: changed)
            }
        }
    }

    /// Stops the loop and releases the lines (LEDs off first, by the client). Idempotent.
    func stop() {
        loop?.cancel()
        loop = nil
        let client = held.client
        held.client = nil
        client?.shutdown()
    }

    /// The client holding the lines: the current one, or one opened after waiting for the chip;
    /// nil when cancelled.
    private func connected(changed: @MainActor (Condition) -> Void) async -> GPIOClient? {
        if let client = held.client { return client }
        var delay = Self.firstBackOff
        while !Task.isCancelled {
            // Watch first, then try: a chip that appears in between is still seen.
            let watch = connector.watchChips()
            defer { watch?.stop() }
            let failure: GPIOError
            do {
                let client = try connector.connect()
                held.client = client
                held.awaited = nil
                lostFailure = nil
                condition = .connected
                logger.notice("GPIO \(connector.chipDescription) is back: lines requested again")
                changed(.connected)
                return client
            } catch {
                failure = error
            }
            if case .waiting(let shown) = condition, shown == failure || (shown == lostFailure && connector.onlyAChipChangeHelps(failure)) {
                // Nothing new to tell: the same failure, or a missing chip right after it was lost
                // (the loss is the news, and says more).
            } else {
                logger.error("waiting for GPIO \(connector.chipDescription): \(failure)")
                held.awaited = failure
                condition = .waiting(failure)
                changed(condition)
            }
            let retryAfter: Duration? = watch != nil && connector.onlyAChipChangeHelps(failure) ? nil : delay
            await Self.firstOf(watch?.changes, retryAfter: retryAfter, fallback: delay, sleep: sleep)
            delay = min(delay * 2, Self.maximumBackOff)
        }
        return nil
    }

    private func lost(_ client: GPIOClient, changed: @MainActor (Condition) -> Void) {
        let failure = client.failure() ?? GPIOError(
            operation: "read GPIO events", target: connector.chipDescription,
            reason: "the button's event stream ended")
        held.client = nil
        client.shutdown()
        held.awaited = failure
        lostFailure = failure
        condition = .waiting(failure)
        logger.critical("GPIO \(connector.chipDescription) lost, no button and no LEDs until it is back: \(failure)")
        changed(condition)
    }

    /// Returns after the first chip change, or after `retryAfter` if given, or when cancelled.
    /// A watch that ends without a change (its directory went away) falls back to `fallback`.
    private static func firstOf(_ changes: AsyncStream<String>?, retryAfter: Duration?, fallback: Duration,
                                sleep: @escaping @Sendable (Duration) async throws -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            if let changes {
                group.addTask {
                    for await _ in changes { return }
                    try? await sleep(fallback)
                }
            }
            if let retryAfter {
                group.addTask { try? await sleep(retryAfter) }
            }
            await group.next()
            group.cancelAll()
        }
    }
}

/// The client whose lines are held and what is awaited when none are, behind one lock: the LED
/// driver reads them from the main actor, a shutdown may come from elsewhere.
private final class HeldLines: Sendable {
    private let state: Mutex<(client: GPIOClient?, awaited: GPIOError?)>

    init(client: GPIOClient?) {
        state = Mutex((client, nil))
    }

    var client: GPIOClient? {
        get { state.withLock { $0.client } }
        set { state.withLock { $0.client = newValue } }
    }

    var awaited: GPIOError? {
        get { state.withLock { $0.awaited } }
        set { state.withLock { $0.awaited = newValue } }
    }
}
