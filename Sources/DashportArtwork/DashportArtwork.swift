// DashportArtwork: placeholder until its issue lands.
enum DashportArtworkModule {}
