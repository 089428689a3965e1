rchar: 22103567301
wchar: 13657
syscr: 168855
syscw: 5
read_bytes: 32768
write_bytes: 28672
cancelled_write_bytes: 0
