rchar: 111441456054
wchar: 13667
syscr: 850450
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
