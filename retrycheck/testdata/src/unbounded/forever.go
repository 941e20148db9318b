package unbounded

import (
	"database/sql"
	"log"
	"time"
)

func forever(db *sql.DB) {
	for { // want `retry loop has no attempt bound, no deadline and no context check: a failure that does not heal retries forever`
		err := db.Ping()
		if err == nil {
			return
		}
		log.Printf("database not ready: %v", err)
		time.Sleep(5 * time.Second)
	}
}
