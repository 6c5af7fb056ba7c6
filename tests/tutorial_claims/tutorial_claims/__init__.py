"""theorycheck's tutorial package: two textbook bounds checked as claims of a user's own."""
