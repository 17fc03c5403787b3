/// The faults the dev server injects: a schedule consumed request by request, then standing ones.
struct FaultPlan: Sendable {
    var schedule: [Fault] = []
    var errorRate = 0.0
    var errorStatus = 503
    var latencyMilliseconds = 0
    var rejectedCheckInIDs: Set<String> = []

    mutating func apply(_ update: FaultUpdate) {
        if update.clear == true { self = FaultPlan() }
        schedule += (update.schedule ?? []).filter { $0.count > 0 }
        if let rate = update.errorRate { errorRate = min(max(rate, 0), 1) }
        if let status = update.errorStatus { errorStatus = status }
        if let latency = update.latencyMilliseconds { latencyMilliseconds = max(latency, 0) }
        rejectedCheckInIDs.formUnion(update.rejectCheckInIDs ?? [])
    }

    /// The fault for the next device API request, of `operation` (`METHOD /path`), if any: the first
    /// scheduled fault that applies to it (one use of it consumed), else a standing one.
    mutating func next(for operation: String, using generator: inout some RandomNumberGenerator) -> Fault? {
        if let index = schedule.firstIndex(where: { $0.applies(to: operation) }) {
            let fault = schedule[index]
            schedule[index].count -= 1
            if schedule[index].count <= 0 { schedule.remove(at: index) }
            return fault
        }
        if errorRate > 0, Double.random(in: 0..<1, using: &generator) < errorRate {
            return Fault(.status, status: errorStatus)
        }
        return nil
    }
}
