#!/bin/sh
# The primary accepts streaming replication from the compose network (the scaled profile's replica).
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
