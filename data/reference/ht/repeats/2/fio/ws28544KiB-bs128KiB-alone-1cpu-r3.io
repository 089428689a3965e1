rchar: 22762949075
wchar: 5976
syscr: 173857
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
