rchar: 48929622478
wchar: 5981
syscr: 2986613
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
