// libqrencode (Debian's libqrencode-dev) for the QR code `lifesignalctl pair` draws.
//
// libqrencode is not linked: TerminalQRCode's `LibQRencode` loads it with dlopen and calls it
// through these pointers, whose types come from qrencode.h's own declarations (`__typeof__`), so
// the compiler checks every call against the installed header.
#ifndef LIFESIGNAL_CQRENCODE_SHIM_H
#define LIFESIGNAL_CQRENCODE_SHIM_H

#include <qrencode.h>

typedef __typeof__(QRcode_encodeString) *lifesignal_qrcode_encode_string_fn;
typedef __typeof__(QRcode_free) *lifesignal_qrcode_free_fn;
typedef __typeof__(QRcode_APIVersionString) *lifesignal_qrcode_api_version_string_fn;

#endif
