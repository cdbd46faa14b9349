// DashportLink: placeholder until its issue lands.
enum DashportLinkModule {}
