import Foundation
import StrataTestSupport

/// A fresh folder for one facade test, with the test secrets key in the environment (`openStorage` reads it).
func storageTestDirectory(_ prefix: String) throws -> TemporaryDirectory {
    setenv("STRATA_TEST_SECRETS_KEY", testSecretsKeyHex, 1)
    return try TemporaryDirectory(prefix: prefix)
}
