rchar: 58098649603
wchar: 11283
syscr: 443449
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
