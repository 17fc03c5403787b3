/// One line of `lifesignalctl doctor`: what was checked, how it went, and what to do about it.
struct DoctorFinding: Hashable, Encodable {
    enum Outcome: String, Encodable {
        /// Fine.
        case ok
        /// Works, but worth fixing (e.g. the clock is not synchronised yet).
        case warning
        /// Something is wrong: doctor exits 1.
        case problem
    }

    var check: String
    var outcome: Outcome
    var detail: String
    /// What to do, for warnings and problems.
    var fix: String?

    static func ok(_ check: String, _ detail: String) -> DoctorFinding {
        DoctorFinding(check: check, outcome: .ok, detail: detail, fix: nil)
    }

    static func warning(_ check: String, _ detail: String, fix: String) -> DoctorFinding {
        DoctorFinding(check: check, outcome: .warning, detail: detail, fix: fix)
    }

    static func problem(_ check: String, _ detail: String, fix: String) -> DoctorFinding {
        DoctorFinding(check: check, outcome: .problem, detail: detail, fix: fix)
    }

    var text: String {
        let mark = switch outcome {
        case .ok: "ok     "
        case .warning: "WARN   "
        case .problem: "PROBLEM"
        }
        var line = "\(mark) \(check): \(detail)"
        if let fix { line += "\n        fix: \(fix)" }
        return line
    }
}
