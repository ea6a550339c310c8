module perflab/servers/chi

go 1.26.0

require (
	github.com/go-chi/chi/v5 v5.5.0
	github.com/jackc/pgx/v5 v5.12.0
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

require perflab/servers/go-common v0.0.0-00010101000000-000000000000

// The code the Go servers share, from this repository (its README says what it holds).
replace perflab/servers/go-common => ../go-common
