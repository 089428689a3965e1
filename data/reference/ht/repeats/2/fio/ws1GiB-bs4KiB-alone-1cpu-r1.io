rchar: 14839294415
wchar: 5979
syscr: 3623048
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
