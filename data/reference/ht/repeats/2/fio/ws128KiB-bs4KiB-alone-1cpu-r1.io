rchar: 20783975368
wchar: 13662
syscr: 5074405
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
