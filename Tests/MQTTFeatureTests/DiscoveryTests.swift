import CheckInModels
import LEDLanguage
import MQTTFeature
import XCTest

/// The discovery message keeps Home Assistant's rules (an origin, a platform and unique id for
/// every component, a name for every entity), offers every indicator the state can carry, and
/// removes the check-in button where remote check-in is off; the state's JSON is exact.
final class DiscoveryTests: XCTestCase {
    let identity = MQTTIdentity(deviceID: "hall", deviceName: "Grandma's \"button\"", discoveryPrefix: "ha",
                                baseTopic: "home/hall", remoteCheckIn: false)

    func testTheDeviceHasAnOriginAndEveryComponentAPlatformAUniqueIDAndAName() throws {
        let text = MQTTDiscovery.payload(identity).text
        XCTAssertTrue(text.hasPrefix(#"{"dev":{"identifiers":["lifesignal_hall"],"name":"Grandma's \"button\"","#), text)
        XCTAssertTrue(text.contains(#""o":{"name":"lifesignald"}"#), text)
        XCTAssertTrue(text.contains(#""availability_topic":"home/hall/availability""#), text)
        for component in MQTTDiscovery.Component.allCases where ![.checkIn, .awayFor].contains(component) {
            XCTAssertTrue(text.contains(#""\#(component.rawValue)":{"p":""#), "\(component) has a platform")
            XCTAssertTrue(text.contains(#""unique_id":"lifesignal_hall_\#(component.rawValue)","name":""#),
                          "\(component) has a unique id and a name")
        }
        XCTAssertTrue(text.contains(#""check_in":{"p":"button"}"#), "remote check-in off: the button is removed, not left")
        XCTAssertFalse(text.contains("home/hall/cmd/check_in"), text)
        XCTAssertTrue(text.contains(#""away_for":{"p":"text"}"#), "remote away off: the away entity is removed, not left")
        XCTAssertFalse(text.contains("home/hall/cmd/away\""), text)
        XCTAssertTrue(text.contains(#""command_topic":"home/hall/cmd/away_end","payload_press":"PRESS""#), "ending away is always offered")
    }

    func testTheIndicatorOffersEveryValueTheStateCarriesAndTheEventsTheirTypes() {
        let text = MQTTDiscovery.payload(identity).text
        let options = MQTTDeviceState.indicatorOptions.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
        XCTAssertTrue(text.contains(#""device_class":"enum","options":[\#(options)]"#), text)
        for brief in [Indicator.acknowledged, .longPress, .identify] {
            XCTAssertFalse(MQTTDeviceState.indicatorOptions.contains(brief), "\(brief) is feedback, never the state")
        }
        XCTAssertTrue(text.contains(#""state_topic":"home/hall/event/check_in","event_types":["check_in","overdue","ping_answered"]"#))
        XCTAssertTrue(text.contains(
            #""state_topic":"home/hall/event/help_alert","event_types":["long_press","alert_sent","alert_cancelled","alert_delivered"]"#))
        XCTAssertTrue(text.contains(#""state_topic":"home/hall/event/power","#
                                    + #""event_types":["on_battery","power_restored","low_battery","unexpected_restart"]"#), text)
        for indicator in [Indicator.lastChance, .away, .onBattery] {
            XCTAssertTrue(MQTTDeviceState.indicatorOptions.contains(indicator), "\(indicator) is a state the sensor can show")
        }
        XCTAssertTrue(text.contains(#""command_topic":"home/hall/cmd/ask_if_ok","payload_press":"PRESS""#))
        XCTAssertTrue(text.contains(#""device_class":"safety","value_template":"{{ 'ON' if value_json.overdue else 'OFF' }}""#))
    }

    func testWithRemoteCheckInTheCheckInButtonIsOffered() {
        var allowed = identity
        allowed.remoteCheckIn = true
        let text = MQTTDiscovery.payload(allowed).text
        XCTAssertTrue(text.contains(#""check_in":{"p":"button","unique_id":"lifesignal_hall_check_in","name":"Check in""#), text)
        XCTAssertTrue(text.contains(#""command_topic":"home/hall/cmd/check_in""#), text)
    }

    func testWithRemoteAwayTheAwayEntityIsOffered() {
        var allowed = identity
        allowed.remoteAway = true
        let text = MQTTDiscovery.payload(allowed).text
        XCTAssertTrue(text.contains(#""away_for":{"p":"text","unique_id":"lifesignal_hall_away_for","name":"Away for","#
                                    + #""command_topic":"home/hall/cmd/away""#), text)
    }

    func testTheStateIsExactJSONWithNullsWhereNothingIsKnownAndTheDeadlineInWholeSeconds() {
        let fresh = MQTTDeviceState(indicator: .neverCheckedIn, phase: "never_checked_in")
        XCTAssertEqual(fresh.json.text, #"{"indicator":"never_checked_in","phase":"never_checked_in","overdue":false,"#
                       + #""last_check_in":null,"last_check_in_source":null,"next_deadline":null,"help_alert":false,"#
                       + #""ping_pending":false,"fault":false,"conditions":[],"oldest_not_uploaded":null,"away":false,"away_until":null,"#
                       + #""on_battery":false,"on_it":null}"#)
        let away = MQTTDeviceState(indicator: .onBattery, phase: "away", awayUntil: WallTime(iso8601: "2026-11-25T18:00:00Z"),
                                   onBattery: true)
        XCTAssertTrue(away.json.text.hasSuffix(#""away":true,"away_until":"2026-11-25T18:00:00.000Z","on_battery":true,"on_it":null}"#),
                      away.json.text)
        let overdue = MQTTDeviceState(indicator: .fault, phase: "overdue", lastCheckIn: WallTime(iso8601: "2026-11-22T07:00:00Z"),
                                      lastCheckInSource: .mqtt, nextDeadline: WallTime(microsecondsSinceEpoch: 1_795_000_000_999_999),
                                      fault: true, conditions: ["store_cannot_write"])
        XCTAssertTrue(overdue.overdue)
        XCTAssertEqual(overdue.nextDeadline, WallTime(microsecondsSinceEpoch: 1_795_000_000_000_000))
        XCTAssertTrue(overdue.json.text.contains(#""last_check_in_source":"mqtt","next_deadline":"2026-11-18T11:06:40.000Z""#),
                      overdue.json.text)
        XCTAssertTrue(overdue.json.text.contains(#""fault":true,"conditions":["store_cannot_write"]"#), overdue.json.text)
    }

    func testJSONStringsEscapeQuotesBackslashesAndControlCharacters() {
        XCTAssertEqual(JSONValue.string("a\"b\\c\nd\u{01}é").text, #""a\"b\\c\nd\u0001é""#)
    }
}
