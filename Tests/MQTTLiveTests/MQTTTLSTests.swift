import MQTTClient
import MQTTLive
import TestSupport
import XCTest

/// TLS through libmosquitto's OpenSSL: a broker certificate signed by the CA file is trusted, one
/// the system's CA store does not know is refused with OpenSSL's reason, and a TLS client at a
/// plain port (or the reverse) fails with a hint instead of hanging.
final class MQTTTLSTests: XCTestCase {
    var broker: MosquittoBroker!

    override func setUpWithError() throws {
        broker = try MosquittoBroker(tls: true)
    }

    override func tearDown() {
        broker = nil
    }

    func testTheCAFileMakesTheBrokersCertificateTrusted() async throws {
        let device = try Watched(broker.settings(port: broker.tlsPort, tls: .caFile(broker.certificatePath)))
        try await device.connected()
        XCTAssertEqual(device.connection.broker, "mqtts://127.0.0.1:\(broker.tlsPort!)")
        try await device.connection.publish(MQTTMessage(topic: "tls/x", payload: "y", retain: false)).get()
    }

    func testACertificateTheSystemDoesNotTrustIsRefusedWithOpenSSLsReason() async throws {
        let device = try Watched(broker.settings(port: broker.tlsPort, tls: .systemCertificates))
        guard case let .connectFailed(failure) = try await device.connect() else { return XCTFail("self-signed: not trusted") }
        XCTAssertEqual(failure.kind, .tls, failure.message)
        XCTAssertTrue(failure.message.contains("certificate verify failed"), failure.message)
        XCTAssertTrue(failure.message.contains("ca_file"), failure.message)
    }

    func testTLSToAPlainPortAndPlainToATLSPortFailWithAHint() async throws {
        let tlsToPlain = try Watched(broker.settings(tls: .caFile(broker.certificatePath)))
        guard case let .connectFailed(first) = try await tlsToPlain.connect() else { return XCTFail("not a TLS port") }
        // OpenSSL sees the broker hang up mid-handshake, or libmosquitto the connection close.
        XCTAssertTrue([.tls, .lost].contains(first.kind), first.message)
        XCTAssertTrue(first.message.contains("not a TLS port? check [mqtt] port and tls"), first.message)

        let plainToTLS = try Watched(broker.settings(port: broker.tlsPort))
        guard case let .connectFailed(second) = try await plainToTLS.connect() else { return XCTFail("a TLS port") }
        XCTAssertTrue(second.message.contains("tls = true"), second.message)
    }
}
