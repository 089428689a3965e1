rchar: 27096844753
wchar: 5979
syscr: 206922
syscw: 3
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
