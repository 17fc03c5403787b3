import HealthchecksSyncFeature
import HeartbeatFeature

extension DeviceFeature.State {
    /// What stops the device's word reaching someone without stopping the device itself: a
    /// heartbeat refused for good, the device's own checks not set up or out of step. Listed in
    /// `status`; the LEDs are left alone (the check-ins are kept and the button works).
    var reachConditions: [DeviceCondition] {
        var conditions: [DeviceCondition] = []
        for heartbeat in [backendHeartbeat, healthchecksHeartbeat].compactMap({ $0 }) where heartbeat.isRefused {
            conditions.append(DeviceCondition(
                .heartbeatRefused, "\(heartbeat.endpoint) refuses the heartbeat: \(heartbeat.lastError ?? "no reason given")",
                advice: "fix the heartbeat URL (or the check it names); the next beat goes at the next period", isFault: false))
        }
        if let sync = healthchecksSync, sync.status == .refused {
            conditions.append(DeviceCondition(
                .checksNotInStep, "the healthchecks checks at \(sync.endpoint) are NOT set up or kept in step with the settings: "
                    + (sync.lastError ?? "no reason given"),
                advice: "check [healthchecks] api_key_file (a read-write API key of the project, not a read-only one) and "
                    + "api_url; it is tried again at the next settings change or restart", isFault: false))
        }
        return conditions
    }

    /// The inputs of `reachConditions`, cheap to compare after every action.
    var reachCauses: [String] {
        var causes: [String] = []
        if let heartbeat = backendHeartbeat, heartbeat.isRefused { causes.append("backend \(heartbeat.lastError ?? "")") }
        if let heartbeat = healthchecksHeartbeat, heartbeat.isRefused { causes.append("healthchecks \(heartbeat.lastError ?? "")") }
        if let sync = healthchecksSync, sync.status == .refused { causes.append("sync \(sync.lastError ?? "")") }
        return causes
    }
}
