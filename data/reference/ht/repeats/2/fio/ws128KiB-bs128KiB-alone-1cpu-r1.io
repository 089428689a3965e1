rchar: 96768821697
wchar: 5981
syscr: 738477
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
