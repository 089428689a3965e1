rchar: 128219286091
wchar: 11301
syscr: 978445
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
