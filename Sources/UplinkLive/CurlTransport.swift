import CCurl
import Glibc
public import LinuxIO
import Synchronization

/// Performs HTTP requests with libcurl, one at a time, on a dedicated thread of its own.
///
/// libcurl's easy interface blocks; it must not run on a Swift concurrency thread (it would hold one
/// of the few cooperative threads for seconds) nor on a Dispatch global queue (which starts
/// libdispatch's 1 Hz pool monitor for good). The thread sleeps in `poll` with no timeout when there
/// is nothing to send, so an idle device does not wake. One easy handle is reused, so a drain of many
/// batches keeps its connection.
public final class CurlTransport: Sendable {
    private let worker: CurlWorker
    private let thread: DedicatedThread

    /// Why a transport could not start.
    public enum StartFailure: Error, CustomStringConvertible {
        /// libcurl is missing or unusable (`LibCurl.shared()`).
        case libcurl(LibCurlUnavailable)
        /// The thread or its wake-up descriptor could not be made.
        case system(SystemError)

        public var description: String {
            switch self {
            case let .libcurl(failure): failure.description
            case let .system(error): "cannot start its thread: \(error)"
            }
        }
    }

    /// Loads libcurl if this is the process's first transport, then starts the transport's thread.
    public init(threadName: String = "uplink-http") throws(StartFailure) {
        let curl: LibCurl
        do {
            curl = try LibCurl.shared()
        } catch {
            throw .libcurl(error)
        }
        do {
            let worker = try CurlWorker(curl: curl)
            self.worker = worker
            thread = try DedicatedThread.start(name: threadName) { worker.run() }
        } catch {
            throw .system(error)
        }
    }

    /// Sends `request` and returns the response (any status) or why there was none.
    /// Cancelling the calling task abandons the request at once (a queued one is never sent, one in
    /// transfer is cut off): a stopping uploader does not wait out a ping long poll.
    public func perform(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportFailure> {
        let id = worker.nextJobID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                worker.submit(CurlWorker.Job(id: id, request: request, continuation: continuation))
            }
        } onCancel: {
            worker.cancel(id)
        }
    }

    /// Sends `request` on the calling thread and blocks until it is done (for a command-line
    /// tool such as `lifesignalctl doctor`; never in the daemon).
    public static func performBlocking(_ request: HTTPRequest) -> Result<HTTPResponse, TransportFailure> {
        let curl: LibCurl
        do {
            curl = try LibCurl.shared()
        } catch {
            return .failure(TransportFailure(code: -1, message: error.description))
        }
        guard let handle = curl.easyInit() else {
            return .failure(TransportFailure(code: -1, message: "libcurl could not create a handle (out of memory?)"))
        }
        defer { curl.easyCleanup(handle) }
        guard let multi = curl.multiInit() else {
            return .failure(TransportFailure(code: -1, message: "libcurl could not create a multi handle (out of memory?)"))
        }
        defer { _ = curl.multiCleanup(multi) }
        return CurlExchange.perform(request, curl: curl, on: handle, multi: multi, shouldStop: { false })
    }

    /// Stops the thread once the request in progress (if any) has finished; later requests fail.
    /// Returns at once unless `wait` is set (a request may take up to its timeout to finish).
    public func shutdown(wait: Bool = false) {
        worker.requestStop()
        if wait { thread.join() }
    }

    deinit {
        worker.requestStop()
    }
}

/// The loop on the transport's thread. Only `submit` and `requestStop` are called from elsewhere.
final class CurlWorker: Sendable {
    struct Job: Sendable {
        let id: UInt64
        let request: HTTPRequest
        let continuation: CheckedContinuation<Result<HTTPResponse, TransportFailure>, Never>
    }

    private struct Inbox {
        var jobs: [Job] = []
        var stopRequested = false
        var nextID: UInt64 = 0
        /// The job in transfer, and whether its caller cancelled it.
        var current: UInt64?
        var currentCancelled = false
        /// Cancelled before they were submitted (the caller's task was cancelled first).
        var cancelledEarly: Set<UInt64> = []
    }

    private let curl: LibCurl
    private let wakeup: WakeupEvent
    private let inbox = Mutex(Inbox())
    /// The thread's multi handle while `run` is inside a transfer, so `requestStop` can interrupt
    /// its wait (`curl_multi_wakeup` is the one multi call that is safe from another thread).
    /// Kept as its address (a plain integer is Sendable; the handle itself stays on the thread).
    private let activeMulti = Mutex<UInt>(0)
    /// The largest reply body accepted; a bigger one is cut off as a failure.
    static let maxResponseBytes = 4 << 20

    init(curl: LibCurl) throws(SystemError) {
        self.curl = curl
        wakeup = try WakeupEvent()
    }

    func nextJobID() -> UInt64 {
        inbox.withLock { inbox in
            inbox.nextID &+= 1
            return inbox.nextID
        }
    }

    static let cancelled = TransportFailure(code: -1, message: "the request was cancelled (the device is stopping that part)")

    func submit(_ job: Job) {
        let refusal = inbox.withLock { inbox -> TransportFailure? in
            if inbox.stopRequested {
                return TransportFailure(code: -1, message: "the uplink is shutting down; the request was not sent")
            }
            if inbox.cancelledEarly.remove(job.id) != nil { return Self.cancelled }
            inbox.jobs.append(job)
            return nil
        }
        guard let refusal else { return wakeup.signal() }
        job.continuation.resume(returning: .failure(refusal))
    }

    /// Abandons job `id`: a queued one is answered at once, one in transfer is cut off.
    func cancel(_ id: UInt64) {
        let queued = inbox.withLock { inbox -> Job? in
            if let index = inbox.jobs.firstIndex(where: { $0.id == id }) { return inbox.jobs.remove(at: index) }
            if inbox.current == id {
                inbox.currentCancelled = true
            } else {
                // Not submitted yet (or already answered, in a race with its answer): remembered
                // briefly, so a submit that follows is refused. Bounded: old ids are long done.
                inbox.cancelledEarly.insert(id)
                if inbox.cancelledEarly.count > 64, let oldest = inbox.cancelledEarly.min() {
                    inbox.cancelledEarly.remove(oldest)
                }
            }
            return nil
        }
        if let queued { return queued.continuation.resume(returning: .failure(Self.cancelled)) }
        activeMulti.withLock { address in
            if let multi = UnsafeMutableRawPointer(bitPattern: address) { _ = curl.multiWakeup(multi) }
        }
    }

    func requestStop() {
        inbox.withLock { $0.stopRequested = true }
        wakeup.signal()
        activeMulti.withLock { address in
            if let multi = UnsafeMutableRawPointer(bitPattern: address) { _ = curl.multiWakeup(multi) }
        }
    }

    private var stopRequested: Bool { inbox.withLock { $0.stopRequested } }
    private var currentStops: Bool { inbox.withLock { $0.stopRequested || $0.currentCancelled } }

    func run() {
        let handle = curl.easyInit()
        let multi = curl.multiInit()
        activeMulti.withLock { $0 = UInt(bitPattern: multi) }
        defer {
            // Cleared under the lock first, so `requestStop` never wakes a freed handle.
            activeMulti.withLock { $0 = 0 }
            if let multi { _ = curl.multiCleanup(multi) }
            if let handle { curl.easyCleanup(handle) }
        }
        while true {
            var descriptor = pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)
            _ = retryingOnEINTR { poll(&descriptor, 1, -1) }
            wakeup.drain()
            // One job at a time, taken from the inbox only when it starts, so a cancelled one still
            // waiting is answered by `cancel` and never sent.
            while let (job, stop) = inbox.withLock({ inbox -> (Job, Bool)? in
                guard !inbox.jobs.isEmpty else { return nil }
                let job = inbox.jobs.removeFirst()
                inbox.current = job.id
                inbox.currentCancelled = false
                return (job, inbox.stopRequested)
            }) {
                let result: Result<HTTPResponse, TransportFailure>
                if stop {
                    result = .failure(TransportFailure(code: -1, message: "the uplink is shutting down; the request was not sent"))
                } else if let handle, let multi {
                    result = CurlExchange.perform(job.request, curl: curl, on: handle, multi: multi, shouldStop: { currentStops })
                } else {
                    result = .failure(TransportFailure(code: -1, message: "libcurl could not create a handle (out of memory?)"))
                }
                let cancelled = inbox.withLock { inbox in
                    defer { inbox.current = nil }
                    return inbox.currentCancelled && !inbox.stopRequested
                }
                job.continuation.resume(returning: cancelled ? .failure(Self.cancelled) : result)
            }
            if stopRequested { return }
        }
    }
}
