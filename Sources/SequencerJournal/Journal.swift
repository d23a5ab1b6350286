import GRDB
import Crypto
