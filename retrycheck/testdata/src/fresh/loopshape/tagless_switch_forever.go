// Fresh case (issue 36, loops not recognised): a for {} whose only way out is a switch
// case on success.
package loopshape

import (
	"database/sql"
	"log"
	"time"
)

func waitForDB(db *sql.DB) {
	for { // want `retry loop has no attempt bound, no deadline and no context check`
		err := db.Ping()
		switch {
		case err == nil:
			log.Print("database is up")
			return
		default:
			log.Printf("database not ready: %v", err)
		}
		time.Sleep(3 * time.Second)
	}
}
