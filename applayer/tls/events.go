package tls

// The app-layer events of TLS, by id: Suricata's tls_decoder_event_table (src/app-layer-ssl.c)
// in its order and spelling; app-layer-event:tls.<name> matches them case-insensitively and
// the anomaly records write them as they are.
const (
	EvInvalidSSLv2Header uint8 = iota
	EvInvalidTLSHeader
	EvInvalidRecordVersion
	EvInvalidRecordType
	EvInvalidRecordLength
	EvInvalidHandshakeMessage
	EvHeartbeatMessage
	EvInvalidHeartbeatMessage
	EvOverflowHeartbeatMessage
	EvDataleakHeartbeatMismatch
	EvHandshakeInvalidLength
	EvMultipleSNIExtensions
	EvInvalidSNIType
	EvInvalidSNILength
	EvTooManyRecordsInPacket
	EvInvalidAlertMessage
	EvInvalidCertificate
	EvCertificateInvalidLength
	EvCertificateInvalidVersion
	EvCertificateInvalidSerial
	EvCertificateInvalidAlgorithmIdentifier
	EvCertificateInvalidX509Name
	EvCertificateInvalidDate
	EvCertificateInvalidExtensions
	EvCertificateInvalidDER
	EvCertificateInvalidSubject
	EvCertificateInvalidIssuer
	EvCertificateInvalidValidity
	EvErrorMessageEncountered
	EvInvalidSSLRecord
)

// EventNames name the events by id (Parser.Events).
var EventNames = []string{
	"INVALID_SSLV2_HEADER", "INVALID_TLS_HEADER", "INVALID_RECORD_VERSION", "INVALID_RECORD_TYPE",
	"INVALID_RECORD_LENGTH", "INVALID_HANDSHAKE_MESSAGE", "HEARTBEAT_MESSAGE",
	"INVALID_HEARTBEAT_MESSAGE", "OVERFLOW_HEARTBEAT_MESSAGE", "DATALEAK_HEARTBEAT_MISMATCH",
	"HANDSHAKE_INVALID_LENGTH", "MULTIPLE_SNI_EXTENSIONS", "INVALID_SNI_TYPE", "INVALID_SNI_LENGTH",
	"TOO_MANY_RECORDS_IN_PACKET", "INVALID_ALERT_MESSAGE", "INVALID_CERTIFICATE",
	"CERTIFICATE_INVALID_LENGTH", "CERTIFICATE_INVALID_VERSION", "CERTIFICATE_INVALID_SERIAL",
	"CERTIFICATE_INVALID_ALGORITHMIDENTIFIER", "CERTIFICATE_INVALID_X509NAME",
	"CERTIFICATE_INVALID_DATE", "CERTIFICATE_INVALID_EXTENSIONS", "CERTIFICATE_INVALID_DER",
	"CERTIFICATE_INVALID_SUBJECT", "CERTIFICATE_INVALID_ISSUER", "CERTIFICATE_INVALID_VALIDITY",
	"ERROR_MESSAGE_ENCOUNTERED", "INVALID_SSL_RECORD",
}

// certEvent is the id of a certificate decoding error's event name (TlsDecodeHSCertificateErrSetEvent:
// an unknown name is INVALID_CERTIFICATE).
func certEvent(name string) uint8 {
	for i := EvInvalidCertificate; i <= EvCertificateInvalidValidity; i++ {
		if EventNames[i] == name {
			return i
		}
	}
	return EvInvalidCertificate
}
