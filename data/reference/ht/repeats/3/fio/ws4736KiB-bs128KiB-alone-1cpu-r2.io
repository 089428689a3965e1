rchar: 73587600347
wchar: 13667
syscr: 561647
syscw: 5
read_bytes: 4096
write_bytes: 12288
cancelled_write_bytes: 0
