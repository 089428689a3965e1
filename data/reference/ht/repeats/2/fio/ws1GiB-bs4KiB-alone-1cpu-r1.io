rchar: 14183357415
wchar: 13661
syscr: 3462928
syscw: 5
read_bytes: 147456
write_bytes: 8192
cancelled_write_bytes: 0
