rchar: 83305630155
wchar: 5981
syscr: 635761
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
