// DashportMessages: placeholder until its issue lands.
enum DashportMessagesModule {}
