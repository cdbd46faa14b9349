// Linux-only headers that Swift's Glibc module does not carry (epoll, eventfd, signalfd).
#ifndef CDASHPORT_LINUX_SHIM_H
#define CDASHPORT_LINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#endif
