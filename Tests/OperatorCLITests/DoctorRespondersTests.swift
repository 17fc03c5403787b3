import ControlProtocol
import DeviceConfig
@testable import OperatorCLI
import XCTest

/// `doctor` with a running daemon judges reach by the daemon's answer: nobody for a missed
/// check-in is a problem; nobody for a help alert, a watcher not reachable now, an empty list or
/// a source that cannot be read is a warning; otherwise OK, with the reach line.
final class DoctorRespondersTests: XCTestCase {
    func report(responders: [ResponderItemReport] = [anna()], nobodyForMissed: Bool = false, nobodyForHelp: Bool = false,
                problems: [String] = [], stale: Bool = false) -> RespondersReport {
        RespondersReport(responders: responders, removed: [], reach: "the reach line", nobodyForMissedCheckIns: nobodyForMissed,
                         nobodyForHelpAlerts: nobodyForHelp, sourceProblems: problems, message: nil, error: nil, stale: stale)
    }

    static func anna(notReachable: String? = nil) -> ResponderItemReport {
        var item = ResponderItemReport(name: "Anna", role: "watcher device", source: "mqtt", id: "kitchen-1", kind: "watcher",
                                       channels: ["device"], told: ["missed_check_in", "help_alert"],
                                       path: "watcher device, over MQTT", since: nil)
        item.notReachableNow = notReachable
        return item
    }

    func outcome(_ report: RespondersReport) -> [DoctorFinding.Outcome] {
        Doctor.reach(DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock"), running: report).map(\.outcome)
    }

    func testTheDaemonsAnswerDecidesHowReachIsJudged() {
        XCTAssertEqual(outcome(report()), [.ok])
        XCTAssertEqual(outcome(report(nobodyForMissed: true)), [.problem])
        XCTAssertEqual(outcome(report(nobodyForHelp: true)), [.warning])
        XCTAssertEqual(outcome(report(responders: [Self.anna(notReachable: "the MQTT broker is not connected")])), [.warning])
        XCTAssertEqual(outcome(report(responders: [])), [.warning])
        XCTAssertEqual(outcome(report(problems: ["backend: 503"])), [.warning])
        XCTAssertEqual(outcome(report(stale: true)), [.warning])
        let finding = Doctor.reach(DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock"),
                                   running: report(problems: ["backend: 503"]))
        XCTAssertEqual(finding.first?.detail, "the reach line (cannot read backend: 503)")
    }
}
