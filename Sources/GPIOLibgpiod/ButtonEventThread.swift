import Glibc
import GPIOClient
import LinuxIO
import Logging
import Synchronization

/// The button's own thread: waits in `poll` on the line request's descriptor and a wake-up event,
/// so it sleeps until an edge (or a debounce/held-recheck deadline) and stops as soon as told to.
///
/// A plain pthread (LinuxIO's `DedicatedThread`) rather than a Dispatch queue or a Task: a
/// blocking wait does not belong on the cooperative pool, and any Dispatch global queue starts
/// libdispatch's once-a-second pool monitor for the life of the process.
final class ButtonEventThread: Sendable {
    private let thread: DedicatedThread
    private let wakeup: WakeupEvent
    private let failureBox: FailureBox

    /// Why the thread ended on its own (the chip went away, a read failed); nil while it runs
    /// and after `stop()`.
    var failure: GPIOError? { failureBox.value.withLock { $0 } }

    /// Starts the thread, which takes sole ownership of the request and releases it when it
    /// ends. `continuation` is finished when the thread ends, for whatever reason.
    init(
        request handover: ThreadHandover<LineRequest>,
        tracker: ButtonLineTracker,
        continuation: AsyncStream<ButtonEvent>.Continuation,
        inputs: ThreadHandover<[InputWatch]> = ThreadHandover(value: []),
        inputContinuation: AsyncStream<InputEvent>.Continuation? = nil,
        log: Logger
    ) throws(GPIOError) {
        let target = handover.value.target
        do {
            let wakeup = try WakeupEvent()
            let failureBox = FailureBox()
            let loop = ThreadHandover(value: ButtonEventLoop(
                request: handover.value, stopDescriptor: wakeup.descriptor, tracker: tracker,
                continuation: continuation, failure: failureBox, log: log, inputs: inputs.value,
                inputContinuation: inputContinuation))
            self.thread = try DedicatedThread.start(name: "gpio-button") { loop.value.run() }
            self.wakeup = wakeup
            self.failureBox = failureBox
        } catch {
            throw GPIOError(operation: LibgpiodOperation.startEventThread, target: target, reason: error.description)
        }
    }

    /// Wakes the thread and waits until it has released the line. Call once.
    func stop() {
        wakeup.signal()
        thread.join()
    }
}

/// Where the button thread leaves the error that ended it, for whoever sees the stream finish.
final class FailureBox: Sendable {
    let value = Mutex<GPIOError?>(nil)
}

/// An input line the button thread watches too: its request and its debouncing.
struct InputWatch {
    let role: InputLine
    let request: LineRequest
    var tracker: ButtonLineTracker
}

/// The thread's state; lives on that thread only.
private final class ButtonEventLoop {
    let request: LineRequest
    let stopDescriptor: Int32
    var tracker: ButtonLineTracker
    let continuation: AsyncStream<ButtonEvent>.Continuation
    let failure: FailureBox
    let log: Logger
    var inputs: [InputWatch]
    let inputContinuation: AsyncStream<InputEvent>.Continuation?

    init(request: LineRequest, stopDescriptor: Int32, tracker: ButtonLineTracker,
         continuation: AsyncStream<ButtonEvent>.Continuation, failure: FailureBox, log: Logger,
         inputs: [InputWatch], inputContinuation: AsyncStream<InputEvent>.Continuation?) {
        self.request = request
        self.stopDescriptor = stopDescriptor
        self.tracker = tracker
        self.continuation = continuation
        self.failure = failure
        self.log = log
        self.inputs = inputs
        self.inputContinuation = inputContinuation
    }

    func run() {
        defer {
            continuation.finish()
            inputContinuation?.finish()
        }
        do {
            try loop()
        } catch {
            // Recorded before the stream finishes, so a consumer that sees the end finds the cause.
            failure.value.withLock { $0 = error }
            log.error("button line failed, no more button events: \(error)")
        }
    }

    private func loop() throws(GPIOError) {
        var descriptors = [
            pollfd(fd: request.eventDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
        ] + inputs.map { pollfd(fd: $0.request.eventDescriptor, events: Int16(POLLIN), revents: 0) }
        while true {
            let ready = waitForReady(&descriptors)
            if descriptors[1].revents != 0 { return }  // stop asked
            if ready > 0 { try readInputs(descriptors) }
            settleInputs()
            if ready > 0 && descriptors[0].revents & Int16(POLLIN) != 0 {
                for edge in try request.readEdges() {
                    let (events, lost) = tracker.edge(edge)
                    events.forEach(deliver)
                    if lost > 0 {
                        log.warning("kernel dropped \(lost) edge event(s) on \(request.target); re-reading the level")
                        tracker.levelRead(try request.value(), at: monotonicNow())
                    }
                }
            } else if ready > 0 && descriptors[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                throw GPIOError(
                    operation: LibgpiodOperation.readEvents, target: request.target,
                    reason: "the line's descriptor reported an error (chip removed?)")
            }
            try settleAndRecheck()
        }
    }

    /// Feeds the inputs' edges to their trackers.
    private func readInputs(_ descriptors: [pollfd]) throws(GPIOError) {
        for index in inputs.indices {
            let revents = descriptors[index + 2].revents
            if revents & Int16(POLLIN) != 0 {
                for edge in try inputs[index].request.readEdges() {
                    let (events, lost) = inputs[index].tracker.edge(edge)
                    events.forEach { deliver($0, from: inputs[index].role) }
                    if lost > 0 { inputs[index].tracker.levelRead(try inputs[index].request.value(), at: monotonicNow()) }
                }
            } else if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                throw GPIOError(
                    operation: LibgpiodOperation.readEvents, target: inputs[index].request.target,
                    reason: "the line's descriptor reported an error (chip removed?)")
            }
        }
    }

    /// Delivers the inputs' levels that have become stable.
    private func settleInputs() {
        let now = monotonicNow()
        for index in inputs.indices {
            if let event = inputs[index].tracker.settle(at: now) { deliver(event, from: inputs[index].role) }
        }
    }

    private func deliver(_ event: ButtonEvent, from role: InputLine) {
        log.debug("input \(role.rawValue) \(event.kind == .pressed ? "active" : "inactive") at \(event.at)")
        inputContinuation?.yield(InputEvent(role, active: event.kind == .pressed, at: event.at))
    }

    /// Delivers a level that has become stable; after a press, and while held, reads the line so
    /// a lost release edge cannot leave the button held.
    private func settleAndRecheck() throws(GPIOError) {
        let now = monotonicNow()
        if let event = tracker.settle(at: now) {
            deliver(event)
            if event.kind == .pressed { tracker.levelRead(try request.value(), at: monotonicNow()) }
        } else if tracker.needsLevelCheck(at: now) {
            tracker.levelRead(try request.value(), at: now)
        }
    }

    private func deliver(_ event: ButtonEvent) {
        log.debug("button \(event.kind.rawValue) at \(event.at)")
        continuation.yield(event)
    }

    /// `poll` until a descriptor is ready or the tracker's next deadline; retries on EINTR.
    /// Timeouts round up to whole milliseconds, so a deadline is never reached early.
    private func waitForReady(_ descriptors: inout [pollfd]) -> Int32 {
        while true {
            for index in descriptors.indices { descriptors[index].revents = 0 }
            var timeoutMilliseconds: Int32 = -1
            if let deadline = ([tracker.wakeDeadline] + inputs.map(\.tracker.wakeDeadline)).compactMap({ $0 }).min() {
                let remaining = max(deadline - monotonicNow(), .zero)
                timeoutMilliseconds = Int32(clamping: (remaining.microseconds + 999) / 1000)
            }
            let result = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

/// CLOCK_MONOTONIC now, the clock the kernel stamps edge events with.
func monotonicNow() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
}

/// Hands a non-Sendable object to the button thread.
///
/// The loop and its request are created here and then used only on the button thread.
///
/// A `LineRequest` shares its `GPIOChip` with the LED requests, so the compiler cannot prove the
/// handover safe. It is, because: after the handover only the button thread uses the request; the
/// chip is touched through it only for atomic reference counting; and `shutdown` joins the thread
/// (which releases the request) before it drops the chip, so the chip never closes on that thread.
struct ThreadHandover<Value>: @unchecked Sendable {
    let value: Value
}
