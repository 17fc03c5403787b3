// The one door to Debian's libsqlite3 (package libsqlite3-dev); only SQLiteDatabase imports it.
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import:
// binding text or blobs needs it so SQLite copies the buffer before the call returns.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
