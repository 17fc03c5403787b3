/// The effects one `Store.send` started, as something to wait for or cancel.
///
/// `finish()` waits for all of them and cancels them when the waiting task is cancelled, so a
/// long-living effect (a button event stream, an uploader) lives exactly as long as whoever awaits
/// it: a service's `run()` awaits it, and graceful shutdown cancels it.
public struct StoreTask: Sendable {
    let tasks: [Task<Void, Never>]

    public init(tasks: [Task<Void, Never>]) {
        self.tasks = tasks
    }

    /// True when the action started no asynchronous work.
    public var isEmpty: Bool { tasks.isEmpty }

    public func finish() async {
        await withTaskCancellationHandler {
            for task in tasks { await task.value }
        } onCancel: {
            for task in tasks { task.cancel() }
        }
    }

    public func cancel() {
        for task in tasks { task.cancel() }
    }
}
