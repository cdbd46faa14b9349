// DashportBrowse: placeholder until its issue lands.
enum DashportBrowseModule {}
